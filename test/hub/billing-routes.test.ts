import { webhookUrlColumns } from '../../hub/src/webhooks/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The hub's clock, fixed: every stamp of these tests comes from it. */
const clock = { current: new Date('2026-05-13T09:30:00.000Z'), now: () => clock.current };

describeEachDialect(
  'billing routes: charges changed and deleted, invoice details, the account',
  (dialect) => {
    let t: TestHub;
    let owner: string;
    let maker: { id: number; token: string };
    let other: { id: number; token: string };
    const api = (token: string, method: string, url: string, payload?: unknown) =>
      t.call(token, {
        method: method as any,
        url: `/api/v1${url}`,
        ...(payload === undefined ? {} : { payload: payload as any }),
      });
    const newMember = async (firstName: string) => {
      const m = (
        await api(owner, 'POST', '/members', { firstName, emailAddress: `${firstName}@test.example` })
      ).json();
      const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
      const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
      return { id: m.id as number, token: token as string };
    };
    const charge = async (member: number, price: string, description = 'Plywood') => {
      const res = await api(owner, 'POST', '/charges', { member, price, description, taxPercent: '20' });
      expect(res.statusCode).toBe(201);
      return res.json();
    };
    /** The webhook events of these types written to the outbox, oldest first. */
    const events = async (...types: string[]) =>
      (
        await t.hub.ctx.db
          .selectFrom('webhook_events')
          .select(['type', 'details'])
          .where('type', 'in', types)
          .orderBy('id')
          .execute()
      ).map((e) => ({ type: e.type, details: JSON.parse(e.details) }));

    beforeAll(async () => {
      t = await startTestHub(dialect, { clock });
      owner = t.owner.token;
      await t.hub.jobs.stop();
      maker = await newMember('Maker');
      other = await newMember('Other');
      // A paused webhook on charges: its events are written to the outbox, never sent.
      await t.hub.ctx.db
        .insertInto('webhooks')
        .values({
          account: t.owner.accountId,
          ...webhookUrlColumns('http://127.0.0.1:9/hook', (plain) => t.hub.ctx.tokens.seal(plain)),
          label: null,
          state: 'paused',
          notes: null,
          categories: JSON.stringify(['charge']),
          secretEncrypted: 'x',
          failingSince: null,
          createdAt: clock.now().toISOString(),
          updatedAt: clock.now().toISOString(),
          updatedBy: null,
        })
        .execute();
    });
    afterAll(async () => t?.close());

    describe('PUT /charges/{id}', () => {
      it('changes an uninvoiced charge, stamps it with the hub clock and sends charge_updated', async () => {
        const c = await charge(maker.id, '10');
        clock.current = new Date('2026-05-13T10:00:00.000Z');
        const res = await api(owner, 'PUT', `/charges/${c.id}`, {
          lockVersion: c.lockVersion,
          price: '12.5',
          description: 'Plywood, 3 sheets',
          id: 999, // read-only: ignored
        });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({
          id: c.id,
          price: '12.50',
          description: 'Plywood, 3 sheets',
          taxPercent: c.taxPercent,
          lockVersion: c.lockVersion + 1,
          updatedAt: '2026-05-13T10:00:00.000Z',
        });
        expect((await api(owner, 'GET', `/charges/${c.id}`)).json().price).toBe('12.50');
        const updated = (await events('charge_updated')).filter((e) => e.details.charge.id === c.id);
        expect(updated.map((e) => e.details.charge.price)).toEqual(['12.50']);
        expect(updated[0].details.member.id).toBe(maker.id);
      });

      it('answers 409 for a stale lockVersion and changes nothing', async () => {
        const c = await charge(maker.id, '3');
        const res = await api(owner, 'PUT', `/charges/${c.id}`, {
          lockVersion: c.lockVersion + 5,
          price: '4',
        });
        expect(res.statusCode).toBe(409);
        expect((await api(owner, 'GET', `/charges/${c.id}`)).json().price).toBe('3.00');
      });

      it('answers 400 naming the field for a bad price, and changes nothing', async () => {
        const c = await charge(maker.id, '3');
        const res = await api(owner, 'PUT', `/charges/${c.id}`, {
          lockVersion: c.lockVersion,
          price: 'lots',
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain('price');
        expect((await api(owner, 'GET', `/charges/${c.id}`)).json()).toMatchObject({
          price: '3.00',
          lockVersion: c.lockVersion,
        });
      });

      it('lets no plain member change a charge: 403 for their own, 404 for another member’s', async () => {
        const mine = await charge(maker.id, '2');
        const theirs = await charge(other.id, '2');
        const body = (c: any) => ({ lockVersion: c.lockVersion, price: '0' });
        expect((await api(maker.token, 'PUT', `/charges/${mine.id}`, body(mine))).statusCode).toBe(403);
        expect((await api(maker.token, 'PUT', `/charges/${theirs.id}`, body(theirs))).statusCode).toBe(404);
        expect((await api(maker.token, 'DELETE', `/charges/${theirs.id}`)).statusCode).toBe(404);
        expect((await api(owner, 'GET', `/charges/${mine.id}`)).json().price).toBe('2.00');
      });
    });

    describe('DELETE /charges/{id}', () => {
      it('deletes an uninvoiced charge and sends charge_deleted {charge, member}', async () => {
        const c = await charge(other.id, '7', 'Filament');
        expect((await api(owner, 'DELETE', `/charges/${c.id}`)).statusCode).toBe(204);
        expect((await api(owner, 'GET', `/charges/${c.id}`)).statusCode).toBe(404);
        const deleted = (await events('charge_deleted')).filter((e) => e.details.charge.id === c.id);
        expect(deleted).toHaveLength(1);
        expect(deleted[0].details).toMatchObject({
          charge: { id: c.id, price: '7.00', description: 'Filament' },
          member: { id: other.id },
        });
      });

      it('refuses to change or delete an invoiced charge (409), until the invoice is cancelled', async () => {
        const member = await newMember('Invoiced');
        const c = await charge(member.id, '20');
        const invoice = (await api(owner, 'POST', '/invoices', { member: member.id })).json();
        const fresh = (await api(owner, 'GET', `/charges/${c.id}`)).json();
        expect(fresh.invoice).toBe(invoice.id);
        const put = await api(owner, 'PUT', `/charges/${c.id}`, {
          lockVersion: fresh.lockVersion,
          price: '1',
        });
        expect(put.statusCode).toBe(409);
        expect(put.json().data).toEqual({ invoiced: invoice.id });
        expect((await api(owner, 'DELETE', `/charges/${c.id}`)).statusCode).toBe(409);
        expect((await api(owner, 'GET', `/charges/${c.id}`)).json()).toMatchObject({ price: '20.00' });
        expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json().total).toBe('20.00');

        expect((await api(owner, 'POST', `/invoices/${invoice.id}/cancel`)).statusCode).toBe(200);
        expect((await api(owner, 'DELETE', `/charges/${c.id}`)).statusCode).toBe(204);
      });
    });

    describe('GET /invoices/{id}?embed=details', () => {
      it('embeds the lines and tax totals as /details gives them; without embed there is none', async () => {
        const member = await newMember('Detailed');
        await charge(member.id, '12', 'Laser 30 min');
        await charge(member.id, '6', 'Acrylic');
        const invoice = (await api(owner, 'POST', '/invoices', { member: member.id })).json();
        const details = (await api(owner, 'GET', `/invoices/${invoice.id}/details`)).json();
        expect(details.totalExcludingTax).toBe('15.00');
        expect(details.charges.map((c: any) => c.netPrice)).toEqual(['10.00', '5.00']);

        const embedded = (await api(owner, 'GET', `/invoices/${invoice.id}?embed=details`)).json();
        expect(embedded._embedded.details).toEqual(details);
        expect(embedded.total).toBe('18.00');
        expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json()._embedded).toBeUndefined();

        const listed = (await api(owner, 'GET', `/invoices?member=${member.id}&embed=details`)).json();
        expect(listed).toHaveLength(1);
        expect(listed[0]._embedded.details).toEqual(details);
        // A member reads their own invoice's details, not another member's invoice.
        expect((await api(member.token, 'GET', `/invoices/${invoice.id}?embed=details`)).statusCode).toBe(
          200,
        );
        expect((await api(maker.token, 'GET', `/invoices/${invoice.id}?embed=details`)).statusCode).toBe(404);
        expect((await api(owner, 'GET', `/invoices/${invoice.id}?embed=nothing`)).statusCode).toBe(400);
      });
    });

    describe('package prorating (the first period)', () => {
      const fees = async (memberId: number) =>
        (await api(owner, 'GET', `/charges?member=${memberId}`))
          .json()
          .map((c: any) => [c.description, c.price, c.dateTime.slice(0, 10)]);
      const give = async (member: number, pkg: number, fromDate: string) => {
        const res = await api(owner, 'POST', `/members/${member}/packages`, { package: pkg, fromDate });
        expect(res.statusCode).toBe(201);
        return res.json();
      };

      it('charges a monthly package starting mid-month pro rata until the 1st, then full calendar months', async () => {
        clock.current = new Date('2026-06-02T09:00:00.000Z');
        const pkg = (
          await api(owner, 'POST', '/packages', {
            name: 'Prorated',
            recurringFee: '30.00',
            recurringFeePeriod: 'month',
            prorate: true,
          })
        ).json();
        const member = await newMember('Prorated');
        // 21 of May's 31 days (11 to 31 May): 30.00 * 21 / 31 = 20.32.
        await give(member.id, pkg.id, '2026-05-11');
        expect(await fees(member.id)).toEqual([
          ['Prorated: 2026-05-11 to 2026-05-31 (pro rata)', '20.32', '2026-05-11'],
          ['Prorated: 2026-06-01 to 2026-06-30', '30.00', '2026-06-01'],
        ]);
        // The package run a month later charges July in full, and nothing twice.
        clock.current = new Date('2026-07-01T09:00:00.000Z');
        expect((await api(owner, 'POST', '/jobs', { type: 'packageBilling' })).statusCode).toBe(202);
        await t.hub.jobs.runDue();
        expect(await fees(member.id)).toHaveLength(3);
        expect((await fees(member.id))[2]).toEqual([
          'Prorated: 2026-07-01 to 2026-07-31',
          '30.00',
          '2026-07-01',
        ]);

        // Starting on the 1st: a full first month, nothing pro rata.
        const first = await newMember('OnTheFirst');
        await give(first.id, pkg.id, '2026-07-01');
        expect(await fees(first.id)).toEqual([['Prorated: 2026-07-01 to 2026-07-31', '30.00', '2026-07-01']]);
      });

      it('keeps periods aligned to the start date without prorate', async () => {
        clock.current = new Date('2026-06-02T09:00:00.000Z');
        const pkg = (
          await api(owner, 'POST', '/packages', {
            name: 'Plain',
            recurringFee: '30.00',
            recurringFeePeriod: 'month',
          })
        ).json();
        const member = await newMember('Plain');
        await give(member.id, pkg.id, '2026-05-11');
        expect(await fees(member.id)).toEqual([['Plain: 2026-05-11 to 2026-06-10', '30.00', '2026-05-11']]);
      });
    });

    describe('PUT /accounts/{id} and payment-info', () => {
      it('lets the owner change the account’s fields under its lockVersion', async () => {
        const id = t.owner.accountId;
        const before = (await api(owner, 'GET', `/accounts/${id}`)).json();
        const res = await api(owner, 'PUT', `/accounts/${id}`, {
          ...before,
          name: 'Makerspace Linz',
          billingEmailAddress: 'board@example.org',
          inviteMembers: true,
          trialEndDate: '2030-01-01', // read-only: ignored
        });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({
          name: 'Makerspace Linz',
          billingEmailAddress: 'board@example.org',
          inviteMembers: true,
          trialEndDate: before.trialEndDate,
          lockVersion: before.lockVersion + 1,
        });
        const stale = await api(owner, 'PUT', `/accounts/${id}`, {
          lockVersion: before.lockVersion,
          name: 'X',
        });
        expect(stale.statusCode).toBe(409);
        expect((await api(owner, 'GET', `/accounts/${id}`)).json().name).toBe('Makerspace Linz');
      });

      it('answers 400 naming the field, 403 to plain members and 404 for another account', async () => {
        const id = t.owner.accountId;
        const current = (await api(owner, 'GET', `/accounts/${id}`)).json();
        const bad = await api(owner, 'PUT', `/accounts/${id}`, {
          lockVersion: current.lockVersion,
          name: '',
        });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().message).toContain('name');
        const email = await api(owner, 'PUT', `/accounts/${id}`, {
          lockVersion: current.lockVersion,
          billingEmailAddress: 'not an address',
        });
        expect(email.statusCode).toBe(400);
        expect(email.json().message).toContain('billingEmailAddress');
        expect(
          (
            await api(maker.token, 'PUT', `/accounts/${id}`, {
              lockVersion: current.lockVersion,
              name: 'Mine',
            })
          ).statusCode,
        ).toBe(403);
        const another = await t.newAccount('Elsewhere', 'elsewhere@test.example');
        expect(
          (await api(owner, 'PUT', `/accounts/${another.accountId}`, { lockVersion: 0, name: 'Taken' }))
            .statusCode,
        ).toBe(404);
        expect((await api(owner, 'GET', `/accounts/${id}`)).json()).toEqual(current);
      });

      it('answers the payment info to owners: no payment method on a self-hosted hub', async () => {
        const id = t.owner.accountId;
        const account = (await api(owner, 'GET', `/accounts/${id}`)).json();
        const res = await api(owner, 'GET', `/accounts/${id}/payment-info`);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ id, paymentMethod: null, lockVersion: account.lockVersion });
        expect((await api(maker.token, 'GET', `/accounts/${id}/payment-info`)).statusCode).toBe(403);
        const another = await t.newAccount('Yet another', 'another@test.example');
        expect((await api(owner, 'GET', `/accounts/${another.accountId}/payment-info`)).statusCode).toBe(404);
      });
    });
  },
);
