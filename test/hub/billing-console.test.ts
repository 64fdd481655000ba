import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { plainMember } from './spaces-support.js';

/** Wednesday 2026-03-04 10:00 UTC. */
const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };

describeEachDialect(
  'the console: privileges, invoice run preview, open balances, payment methods',
  (dialect) => {
    let t: TestHub;
    let owner: string;
    const call = (token: string, method: string, url: string, payload?: unknown) =>
      t.call(token, {
        method: method as 'GET',
        url: `/api/v1${url}`,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const privilegesOf = async (id: number) => (await call(owner, 'GET', `/members/${id}/privileges`)).json();

    beforeAll(async () => {
      t = await startTestHub(dialect, { clock });
      owner = t.owner.token;
      await t.hub.jobs.stop(); // the tests run the queued jobs themselves
    });
    afterAll(async () => t?.close());

    describe('privileges', () => {
      it('refuses the last owner giving up owner, in words, and changes nothing', async () => {
        const res = await call(owner, 'PUT', `/members/${t.owner.memberId}/privileges`, {
          privileges: 'admin',
        });
        expect(res.statusCode).toBe(422);
        expect(res.json()).toMatchObject({
          message: "You are the account's last owner: make another member owner first",
          data: { lastOwner: true },
        });
        expect(await privilegesOf(t.owner.memberId)).toEqual({ privileges: 'owner' });
      });

      it('refuses changing one’s own privileges, also with another owner', async () => {
        const second = await plainMember(t, 'Second');
        const admin = await plainMember(t, 'Adele');
        expect(
          (await call(owner, 'PUT', `/members/${second.memberId}/privileges`, { privileges: 'owner' }))
            .statusCode,
        ).toBe(200);
        expect(
          (await call(owner, 'PUT', `/members/${admin.memberId}/privileges`, { privileges: 'admin' }))
            .statusCode,
        ).toBe(200);
        // Two owners now, and still nobody demotes themself.
        const own = await call(owner, 'PUT', `/members/${t.owner.memberId}/privileges`, {
          privileges: 'member',
        });
        expect(own.statusCode).toBe(422);
        expect(own.json()).toMatchObject({
          message: 'You cannot change your own privileges: another owner or admin must',
          data: { ownPrivileges: true },
        });
        const adminSelf = await call(admin.token, 'PUT', `/members/${admin.memberId}/privileges`, {
          privileges: 'member',
        });
        expect(adminSelf.statusCode).toBe(422);
        expect(adminSelf.json().data).toEqual({ ownPrivileges: true });
        expect(await privilegesOf(admin.memberId)).toEqual({ privileges: 'admin' });
        expect(await privilegesOf(t.owner.memberId)).toEqual({ privileges: 'owner' });
        // An admin does not touch an owner; another owner does.
        const byAdmin = await call(admin.token, 'PUT', `/members/${second.memberId}/privileges`, {
          privileges: 'member',
        });
        expect(byAdmin.statusCode).toBe(403);
        const byOwner = await call(owner, 'PUT', `/members/${second.memberId}/privileges`, {
          privileges: 'member',
        });
        expect(byOwner.statusCode).toBe(200);
        expect(await privilegesOf(second.memberId)).toEqual({ privileges: 'member' });
      });

      it('refuses bad input (400 naming the field) and plain members (403), changing nothing', async () => {
        const plain = await plainMember(t, 'Plain');
        const bad = await call(owner, 'PUT', `/members/${plain.memberId}/privileges`, { privileges: 'king' });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().message).toContain('privileges');
        const other = await plainMember(t, 'Other');
        const asMember = await call(plain.token, 'PUT', `/members/${other.memberId}/privileges`, {
          privileges: 'admin',
        });
        expect(asMember.statusCode).toBe(403);
        expect(await privilegesOf(plain.memberId)).toEqual({ privileges: 'member' });
        expect(await privilegesOf(other.memberId)).toEqual({ privileges: 'member' });
      });
    });

    describe('invoice run preview and open balances', () => {
      let ada: { memberId: number; token: string };
      let bo: { memberId: number; token: string };
      const charge = async (member: number, price: string, description: string, dateTime: string) => {
        const res = await call(owner, 'POST', '/charges', { member, price, description, dateTime });
        expect(res.statusCode).toBe(201);
        return res.json();
      };
      const nextNumber = async () =>
        (
          await t.hub.ctx.db
            .selectFrom('space_billing_settings' as any)
            .select('nextInvoiceNumber' as any)
            .where('space', '=', t.owner.spaceId)
            .executeTakeFirstOrThrow()
        ).nextInvoiceNumber;

      beforeAll(async () => {
        ada = await plainMember(t, 'Ada');
        bo = await plainMember(t, 'Bo');
        await charge(ada.memberId, '12.50', 'Laser, 25 min', '2026-03-02T18:00:00.000Z');
        await charge(ada.memberId, '3.00', 'Plywood', '2026-03-03T18:00:00.000Z');
        await charge(bo.memberId, '30.00', 'Membership March', '2026-03-01T00:00:00.000Z');
      });

      it('previews what the run would invoice, writing nothing; the run then makes exactly that', async () => {
        const numberBefore = await nextNumber();
        const res = await call(owner, 'GET', '/jobs/invoice-run-preview');
        expect(res.statusCode).toBe(200);
        const preview = res.json();
        expect(preview).toMatchObject({ memberCount: 2, total: '45.50', skipped: [] });
        expect(preview.invoices.map((i: any) => [i.memberName, i.total, i.date, i.dueDate])).toEqual([
          ['Ada', '15.50', '2026-03-04', '2026-03-18'],
          ['Bo', '30.00', '2026-03-04', '2026-03-18'],
        ]);
        expect(preview.invoices[0].charges.map((c: any) => [c.description, c.price])).toEqual([
          ['Laser, 25 min', '12.50'],
          ['Plywood', '3.00'],
        ]);
        // Only Ada, as POST /jobs {member} limits the run.
        const one = (await call(owner, 'GET', `/jobs/invoice-run-preview?member=${ada.memberId}`)).json();
        expect(one).toMatchObject({ memberCount: 1, total: '15.50' });
        // Nothing was written: no invoice, no number taken, every charge still open.
        expect((await call(owner, 'GET', '/invoices')).json()).toEqual([]);
        expect(await nextNumber()).toBe(numberBefore);
        expect((await call(owner, 'GET', '/charges?uninvoiced=true')).json()).toHaveLength(3);

        const queued = await call(owner, 'POST', '/jobs', { type: 'invoiceRun' });
        expect(queued.statusCode).toBe(202);
        await t.hub.jobs.runDue();
        const job = (await call(owner, 'GET', `/jobs/${queued.json().id}`)).json();
        expect(job.state).toBe('succeeded');
        const made = await Promise.all(
          job.result.invoices.map(async (id: number) => ({
            invoice: (await call(owner, 'GET', `/invoices/${id}`)).json(),
            details: (await call(owner, 'GET', `/invoices/${id}/details`)).json(),
          })),
        );
        expect(
          made.map(({ invoice }) => [invoice.member, invoice.total, invoice.date, invoice.dueDate]),
        ).toEqual(preview.invoices.map((i: any) => [i.member, i.total, i.date, i.dueDate]));
        expect(made[0].details.charges.map((c: any) => c.id)).toEqual(
          preview.invoices[0].charges.map((c: any) => c.id),
        );
        // Nothing left to invoice.
        expect((await call(owner, 'GET', '/jobs/invoice-run-preview')).json()).toMatchObject({
          memberCount: 0,
          total: '0.00',
          invoices: [],
        });
      });

      it('refuses a bad or foreign member (400/422) and plain members (403)', async () => {
        const bad = await call(owner, 'GET', '/jobs/invoice-run-preview?member=abc');
        expect(bad.statusCode).toBe(400);
        expect(bad.json().message).toContain('member');
        const other = await t.newAccount('Elsewhere', 'else@billing-console.example');
        const foreign = await call(owner, 'GET', `/jobs/invoice-run-preview?member=${other.memberId}`);
        expect(foreign.statusCode).toBe(422);
        expect((await call(ada.token, 'GET', '/jobs/invoice-run-preview')).statusCode).toBe(403);
      });

      it('lists the members whose balance is not zero, most owed first; a payment in full takes one off', async () => {
        await charge(ada.memberId, '4.00', 'Filament', '2026-03-04T09:00:00.000Z');
        const res = await call(owner, 'GET', '/balances');
        expect(res.statusCode).toBe(200);
        expect(res.headers['x-total-count']).toBe('2');
        expect(res.json()).toEqual([
          {
            member: bo.memberId,
            memberName: 'Bo',
            memberNumber: null,
            balance: '-30.00',
            unpaidInvoices: '30.00',
            uninvoicedCharges: '0.00',
          },
          {
            member: ada.memberId,
            memberName: 'Ada',
            memberNumber: null,
            balance: '-19.50',
            unpaidInvoices: '15.50',
            uninvoicedCharges: '4.00',
          },
        ]);
        const page = await call(owner, 'GET', '/balances?limit=1&offset=1');
        expect(page.json().map((b: any) => b.memberName)).toEqual(['Ada']);

        const boInvoice = (await call(owner, 'GET', `/invoices?member=${bo.memberId}`)).json()[0];
        const paid = await call(owner, 'POST', '/payments', {
          member: bo.memberId,
          total: '30.00',
          method: 'cash',
          invoices: [boInvoice.id],
        });
        expect(paid.statusCode).toBe(201);
        expect(paid.json()).toMatchObject({ method: 'cash', invoices: [boInvoice.id] });
        expect((await call(owner, 'GET', `/invoices/${boInvoice.id}`)).json().state).toBe('paid');
        expect((await call(owner, 'GET', '/balances')).json().map((b: any) => b.memberName)).toEqual(['Ada']);
      });

      it('refuses a bad page or payment method (400 naming the field) and plain members (403)', async () => {
        const bad = await call(owner, 'GET', '/balances?limit=0');
        expect(bad.statusCode).toBe(400);
        expect(bad.json().message).toContain('limit');
        expect((await call(ada.token, 'GET', '/balances')).statusCode).toBe(403);
        const before = (await call(owner, 'GET', '/payments')).json().length;
        const method = await call(owner, 'POST', '/payments', {
          member: ada.memberId,
          total: '1.00',
          method: 'gold',
        });
        expect(method.statusCode).toBe(400);
        expect(method.json().message).toContain('method');
        expect((await call(owner, 'GET', '/payments')).json()).toHaveLength(before);
        // Transfer, then changed to cash.
        const transfer = await call(owner, 'POST', '/payments', {
          member: ada.memberId,
          total: '1.00',
          method: 'transfer',
        });
        expect(transfer.json().method).toBe('transfer');
        const changed = await call(owner, 'PUT', `/payments/${transfer.json().id}`, {
          method: 'cash',
          lockVersion: transfer.json().lockVersion,
        });
        expect(changed.json().method).toBe('cash');
      });
    });
  },
);
