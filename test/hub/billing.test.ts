import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeForBooking, chargeForStoppedSession } from '../../hub/src/billing/charges.js';
import { JobRunner } from '../../hub/src/billing/jobs.js';
import { billingSettingsFor } from '../../hub/src/billing/settings.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** A clock the test moves: Wednesday 2026-03-04 10:00 UTC is 11:00 in Vienna. */
const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };

describeEachDialect('billing: packages, policy rules, charges, invoices, payments, jobs', (dialect) => {
  let t: TestHub;
  let owner: string;
  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  let admin: { id: number; token: string };
  let maker: { id: number; token: string };
  let typeId: number;
  let printer: any;
  let laser: any;
  let pkg: any;
  let credit: any;
  let permission: any;

  const newMember = async (firstName: string, privileges?: string) => {
    const m = (
      await api(owner, 'POST', '/members', { firstName, emailAddress: `${firstName}@test.example` })
    ).json();
    if (privileges) await api(owner, 'PUT', `/members/${m.id}/privileges`, { privileges });
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
    return { id: m.id as number, token: token as string };
  };
  const decide = async (memberId: number, resource: any, at: string) => {
    const member = await t.hub.ctx.db
      .selectFrom('members')
      .selectAll()
      .where('id', '=', memberId)
      .executeTakeFirstOrThrow();
    const fresh = await t.hub.ctx.db
      .selectFrom('resources')
      .selectAll()
      .where('id', '=', resource.id)
      .executeTakeFirstOrThrow();
    return t.hub.ctx.policy.decide({ db: t.hub.ctx.db, resource: fresh, member, at: new Date(at) });
  };
  const stoppedLog = async (memberId: number, resourceId: number, from: string, until: string) => {
    const row = await t.hub.ctx.db
      .insertInto('resource_logs')
      .values({
        account: t.owner.accountId,
        resource: resourceId,
        type: 'allowed',
        member: memberId,
        createdAt: from,
        stoppedAt: until,
        stopType: 'normal',
        idleDurationSeconds: 0,
        updatedAt: until,
      } as any)
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    await t.hub.jobs.stop(); // the tests drive the job runner themselves
    const db = t.hub.ctx.db;
    await db
      .updateTable('spaces')
      .set({ timezone: 'Europe/Vienna' })
      .where('id', '=', t.owner.spaceId)
      .execute();
    const settings = await billingSettingsFor(db, t.owner.spaceId, {
      at: t.hub.ctx.clock.now().toISOString(),
    });
    await (db as any)
      .updateTable('space_billing_settings')
      .set({ taxPercent: '20', invoiceNumberPrefix: 'INV-', nextInvoiceNumber: 7 })
      .where('id', '=', settings.id)
      .execute();
    admin = await newMember('admin', 'admin');
    maker = await newMember('maker');
    const at = new Date().toISOString();
    typeId = (
      await db
        .insertInto('resource_types')
        .values({
          account: t.owner.accountId,
          name: '3D printers',
          createdAt: at,
          updatedAt: at,
          updatedBy: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const resource = (name: string, values: Record<string, unknown>) =>
      db
        .insertInto('resources')
        .values({
          account: t.owner.accountId,
          space: t.owner.spaceId,
          name,
          switchOnCodeEncrypted: 'x',
          createdAt: at,
          updatedAt: at,
          updatedBy: null,
          ...values,
        } as any)
        .returningAll()
        .executeTakeFirstOrThrow();
    printer = await resource('Prusa', {
      type: typeId,
      pricePerUsage: '1.00',
      pricePerTimeBusy: '1.50',
      pricePerTimeBusySeconds: 900,
      pricePerBooking: '2.00',
      pricePerBookingSeconds: 1800,
    });
    laser = await resource('Laser', { pricePerUsage: '5.00' });
  });
  afterAll(async () => t?.close());

  describe('packages, credits and permissions', () => {
    it('creates, reads, lists and updates a package; only owners set fees and state', async () => {
      const created = await api(owner, 'POST', '/packages', {
        name: 'Maker',
        setupFee: '10',
        recurringFee: '30.00',
        recurringFeePeriod: 'month',
        description: '<p>All printers<script>x</script></p>',
      });
      expect(created.statusCode).toBe(201);
      pkg = created.json();
      expect(pkg).toMatchObject({ name: 'Maker', setupFee: '10.00', recurringFee: '30.00', state: 'active' });
      expect(pkg.description).toBe('<p>All printers</p>');

      expect((await api(owner, 'POST', '/packages', { name: 'X', colour: 'red' })).statusCode).toBe(400);
      const byAdmin = await api(admin.token, 'POST', '/packages', { name: 'Cheap', recurringFee: '1.00' });
      expect(byAdmin.statusCode).toBe(403);
      expect(byAdmin.json().data).toEqual({ ownerOnlyFields: ['recurringFee'] });
      const free = await api(admin.token, 'POST', '/packages', { name: 'Free' });
      expect(free.statusCode).toBe(201);

      const raise = await api(admin.token, 'PUT', `/packages/${pkg.id}`, { ...pkg, recurringFee: '99.00' });
      expect(raise.statusCode).toBe(403);
      const rename = await api(admin.token, 'PUT', `/packages/${pkg.id}`, { ...pkg, name: 'Maker plus' });
      expect(rename.statusCode).toBe(200);
      expect(rename.json()).toMatchObject({
        name: 'Maker plus',
        recurringFee: '30.00',
        lockVersion: pkg.lockVersion + 1,
      });
      const stale = await api(owner, 'PUT', `/packages/${pkg.id}`, {
        lockVersion: pkg.lockVersion,
        name: 'Old',
      });
      expect(stale.statusCode).toBe(409);
      pkg = (await api(owner, 'GET', `/packages/${pkg.id}`)).json();
      expect(pkg.name).toBe('Maker plus');

      const list = await api(owner, 'GET', '/packages?q=maker');
      expect(list.json().map((p: any) => p.id)).toEqual([pkg.id]);
      // A plain member sees only packages they hold.
      expect((await api(maker.token, 'GET', '/packages')).json()).toEqual([]);
      expect((await api(maker.token, 'GET', `/packages/${pkg.id}`)).statusCode).toBe(404);
      expect((await api(maker.token, 'POST', '/packages', { name: 'Mine' })).statusCode).toBe(403);

      const gone = (await api(owner, 'POST', '/packages', { name: 'Gone' })).json();
      expect((await api(owner, 'DELETE', `/packages/${gone.id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/packages/${gone.id}`)).statusCode).toBe(404);
    });

    it('adds a default credit with an empty POST and edits it; only owners change amounts', async () => {
      const res = await t.call(owner, {
        method: 'POST',
        url: `/api/v1/packages/${pkg.id}/credits`,
        headers: { 'content-type': 'application/json' },
        payload: 'false',
      });
      expect(res.statusCode).toBe(201);
      credit = res.json();
      expect(credit).toMatchObject({
        package: pkg.id,
        scope: 'global',
        amount: '0.00',
        period: 'month',
        resources: [],
      });
      const url = `/packages/${pkg.id}/credits/${credit.id}`;
      expect((await api(admin.token, 'PUT', url, { ...credit, amount: '5.00' })).statusCode).toBe(403);
      const set = await api(owner, 'PUT', url, { ...credit, amount: '5', scope: 'usage' });
      expect(set.statusCode).toBe(200);
      credit = set.json();
      expect(credit).toMatchObject({ amount: '5.00', scope: 'usage' });
      expect((await api(owner, 'GET', url)).json().amount).toBe('5.00');
      expect((await api(owner, 'GET', `/packages/${pkg.id}/credits`)).json()).toHaveLength(1);
      const extra = (await api(owner, 'POST', `/packages/${pkg.id}/credits`)).json();
      expect((await api(owner, 'DELETE', `/packages/${pkg.id}/credits/${extra.id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/packages/${pkg.id}/credits/${extra.id}`)).statusCode).toBe(404);
      expect(
        (await api(owner, 'PUT', url, { amount: '-1', lockVersion: credit.lockVersion })).statusCode,
      ).toBe(400);
    });

    it('adds permissions for a resource type with a custom time table', async () => {
      const url = `/packages/${pkg.id}/permissions`;
      expect((await api(owner, 'POST', url, { type: 'resourceType' })).statusCode).toBe(422);
      expect((await api(owner, 'POST', url, { type: 'resourceType', resourceType: 999999 })).statusCode).toBe(
        422,
      );
      expect(
        (
          await api(owner, 'POST', url, {
            type: 'everything',
            times: [{ dayOfWeek: 8, fromTime: '09:00', untilTime: '10:00' }],
          })
        ).statusCode,
      ).toBe(400);
      const res = await api(owner, 'POST', url, {
        type: 'resourceType',
        resourceType: typeId,
        timeType: 'custom',
        times: [{ dayOfWeek: 3, fromTime: '09:00', untilTime: '18:00' }],
        usageFeeDiscountPercent: '10',
      });
      expect(res.statusCode).toBe(201);
      permission = res.json();
      expect(permission).toMatchObject({
        type: 'resourceType',
        resourceType: typeId,
        resource: null,
        usageFeeDiscountPercent: '10',
      });
      const one = `${url}/${permission.id}`;
      expect(
        (await api(admin.token, 'PUT', one, { ...permission, usageFeeDiscountPercent: '50' })).statusCode,
      ).toBe(403);
      const put = await api(admin.token, 'PUT', one, { ...permission, bookingFeeDiscountPercent: '0' });
      expect(put.statusCode).toBe(200);
      permission = put.json();
      expect((await api(owner, 'GET', url)).json()).toHaveLength(1);
      const spare = (await api(owner, 'POST', url, { type: 'resource', resource: laser.id })).json();
      expect((await api(owner, 'DELETE', `${url}/${spare.id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `${url}/${spare.id}`)).statusCode).toBe(404);
    });
  });

  describe('member packages and the package rules of the access policy', () => {
    let memberPackage: any;

    it('denies noPackage before the member holds a package', async () => {
      const d = await decide(maker.id, printer, '2026-03-04T10:00:00Z');
      expect(d).toMatchObject({ allowed: false, reason: 'noPackage' });
    });

    it('gives a member a package: setup fee, first month and the credit at once', async () => {
      const res = await api(owner, 'POST', `/members/${maker.id}/packages`, {
        package: pkg.id,
        fromDate: '2026-03-01',
        notes: 'Welcome',
      });
      expect(res.statusCode).toBe(201);
      memberPackage = res.json();
      expect(memberPackage).toMatchObject({
        member: maker.id,
        package: pkg.id,
        fromDate: '2026-03-01',
        untilDate: null,
      });
      const charges = (await api(owner, 'GET', `/charges?member=${maker.id}`)).json();
      expect(charges.map((c: any) => [c.description, c.price, c.taxPercent])).toEqual([
        ['Maker plus: setup fee', '10.00', '20'],
        ['Maker plus: 2026-03-01 to 2026-03-31', '30.00', '20'],
      ]);
      const list = await api(maker.token, 'GET', `/members/${maker.id}/packages?embed=package`);
      expect(list.json()[0]._embedded.package.name).toBe('Maker plus');
      expect((await api(maker.token, 'GET', '/packages')).json().map((p: any) => p.id)).toEqual([pkg.id]);
      const one = `/members/${maker.id}/packages/${memberPackage.id}`;
      expect((await api(owner, 'GET', one)).json().notes).toBe('Welcome');
      expect(
        (await api(maker.token, 'POST', `/members/${maker.id}/packages`, { package: pkg.id })).statusCode,
      ).toBe(403);
      const bad = await api(owner, 'PUT', one, { ...memberPackage, untilDate: '2026-02-01' });
      expect(bad.statusCode).toBe(422);
    });

    it("allows the member on a printer of the permission's type within its time, until the window ends", async () => {
      const d = await decide(maker.id, printer, '2026-03-04T10:00:00Z'); // Wed 11:00 Vienna
      expect(d).toEqual({ allowed: true, maxDuration: 7 * 3600 });
    });

    it('denies timeTable outside the custom time and noPackage for a resource it does not cover', async () => {
      expect(await decide(maker.id, printer, '2026-03-04T18:30:00Z')).toMatchObject({
        allowed: false,
        reason: 'timeTable',
      });
      expect(await decide(maker.id, printer, '2026-03-05T10:00:00Z')).toMatchObject({
        allowed: false,
        reason: 'timeTable',
      });
      expect(await decide(maker.id, laser, '2026-03-04T10:00:00Z')).toMatchObject({
        allowed: false,
        reason: 'noPackage',
      });
      // Owners and admins pass the package rules.
      expect(await decide(t.owner.memberId, laser, '2026-03-04T10:00:00Z')).toMatchObject({ allowed: true });
    });

    it('denies noPackage when the member package has ended or not begun', async () => {
      const one = `/members/${maker.id}/packages/${memberPackage.id}`;
      const ended = await api(owner, 'PUT', one, { ...memberPackage, untilDate: '2026-03-03' });
      expect(ended.statusCode).toBe(200);
      expect(await decide(maker.id, printer, '2026-03-04T10:00:00Z')).toMatchObject({ reason: 'noPackage' });
      const back = await api(owner, 'PUT', one, { ...ended.json(), untilDate: null });
      expect(back.json().untilDate).toBeNull();
      memberPackage = back.json();
      expect(await decide(maker.id, printer, '2026-02-25T10:00:00Z')).toMatchObject({ reason: 'noPackage' });
      expect(await decide(maker.id, printer, '2026-03-04T10:00:00Z')).toMatchObject({ allowed: true });
    });

    it('removes a member package with DELETE', async () => {
      const free = (await api(owner, 'GET', '/packages?q=free')).json()[0];
      const mp = (await api(owner, 'POST', `/members/${maker.id}/packages`, { package: free.id })).json();
      const url = `/members/${maker.id}/packages/${mp.id}`;
      expect((await api(maker.token, 'DELETE', url)).statusCode).toBe(403);
      expect((await api(owner, 'DELETE', url)).statusCode).toBe(204);
      expect((await api(owner, 'GET', url)).statusCode).toBe(404);
      expect((await api(owner, 'GET', `/members/${maker.id}/packages`)).json()).toHaveLength(1);
    });

    it('denies prepaidBalance while a prepaying member has too little paid in', async () => {
      const payer = await newMember('payer');
      const free = (await api(owner, 'GET', '/packages?q=free')).json()[0];
      await api(owner, 'POST', `/packages/${free.id}/permissions`, { type: 'everything' });
      await api(owner, 'POST', `/members/${payer.id}/packages`, { package: free.id });
      const m = (await api(owner, 'GET', `/members/${payer.id}`)).json();
      await api(owner, 'PUT', `/members/${payer.id}`, {
        ...m,
        requireUpfrontPayment: true,
        upfrontMinimumBalance: '5.00',
      });
      expect(await decide(payer.id, laser, '2026-03-04T10:00:00Z')).toMatchObject({
        allowed: false,
        reason: 'prepaidBalance',
      });
      expect((await api(owner, 'POST', '/payments', { member: payer.id, total: '20.00' })).statusCode).toBe(
        201,
      );
      expect(await decide(payer.id, laser, '2026-03-04T10:00:00Z')).toMatchObject({
        allowed: true,
        maxDuration: null,
      });
    });
  });

  describe('usage charges, invoices and payments', () => {
    let usage: any;
    let invoice: any;

    it('charges a 90-minute session once: price minus the discount, paid from credits first', async () => {
      const logId = await stoppedLog(
        maker.id,
        printer.id,
        '2026-03-04T10:00:00.000Z',
        '2026-03-04T11:30:00.000Z',
      );
      const bill = await t.hub.ctx.db
        .transaction()
        .execute((trx) => chargeForStoppedSession(trx, t.hub.ctx, logId));
      // 1.00 per use + 6 quarter hours at 1.50 = 10.00; 10% off = 9.00; 5.00 from credit = 4.00.
      expect(bill).toMatchObject({ gross: '10.00', discountPercent: '10', creditUsed: '5.00' });
      expect(await chargeForStoppedSession(t.hub.ctx.db, t.hub.ctx, logId)).toBeNull();
      const charges = (await api(owner, 'GET', `/charges?resourceLog=${logId}`)).json();
      expect(charges).toHaveLength(1);
      usage = charges[0];
      expect(usage).toMatchObject({
        member: maker.id,
        price: '4.00',
        taxPercent: '20',
        resourceLog: logId,
        memberPackage: expect.any(Number),
        calculated: true,
        invoice: null,
        description: 'Prusa: 90 min',
        dateTime: '2026-03-04T11:30:00.000Z',
      });
      // The credit is spent: the next session pays in full, and the credit stays at zero.
      const next = await stoppedLog(
        maker.id,
        printer.id,
        '2026-03-04T12:00:00.000Z',
        '2026-03-04T12:10:00.000Z',
      );
      const second = await chargeForStoppedSession(t.hub.ctx.db, t.hub.ctx, next);
      expect(second?.creditUsed).toBe('0.00');
      expect(second?.charge?.price).toBe('2.25');
      const credits = await t.hub.ctx.db
        .selectFrom('member_credits')
        .selectAll()
        .where('member', '=', maker.id)
        .execute();
      expect(credits.map((c) => c.remaining)).toEqual(['0.00']);
      // A use stopped within the same second is billed as a use, and its line says so.
      const blink = await stoppedLog(
        maker.id,
        printer.id,
        '2026-03-04T12:20:00.000Z',
        '2026-03-04T12:20:00.300Z',
      );
      const third = await chargeForStoppedSession(t.hub.ctx.db, t.hub.ctx, blink);
      expect(third?.charge?.description).toBe('Prusa: 1 min');
      // Not part of what the tests below invoice.
      expect((await api(owner, 'DELETE', `/charges/${third?.charge?.id}`)).statusCode).toBe(204);
    });

    it('charges a booking of a resource with a booking price', async () => {
      const at = new Date().toISOString();
      const booking = await (t.hub.ctx.db as any)
        .insertInto('bookings')
        .values({
          account: t.owner.accountId,
          resource: printer.id,
          member: maker.id,
          fromDateTime: '2026-03-04T13:00:00.000Z',
          untilDateTime: '2026-03-04T14:00:00.000Z',
          createdAt: at,
          updatedAt: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const bill = await chargeForBooking(t.hub.ctx.db, t.hub.ctx, booking.id);
      expect(bill?.charge).toMatchObject({ price: '4.00', booking: booking.id });
      expect(await chargeForBooking(t.hub.ctx.db, t.hub.ctx, booking.id)).toBeNull();
    });

    it('takes manual charges from admins only, with the decimal strings of the wire', async () => {
      const res = await api(owner, 'POST', '/charges', {
        member: maker.id,
        description: 'Filament',
        price: 2.5,
        taxPercent: '10',
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ price: '2.50', taxPercent: '10', calculated: false });
      expect((await api(owner, 'GET', `/charges/${res.json().id}`)).json().description).toBe('Filament');
      expect(
        (await api(maker.token, 'POST', '/charges', { member: maker.id, description: 'x', price: '1' }))
          .statusCode,
      ).toBe(403);
      expect(
        (await api(owner, 'POST', '/charges', { member: maker.id, description: 'x', price: '1.2.3' }))
          .statusCode,
      ).toBe(400);
      expect(
        (await api(owner, 'POST', '/charges', { member: 999999, description: 'x', price: '1' })).statusCode,
      ).toBe(422);
    });

    it('invoices the uninvoiced charges with the next number; a second invoice with nothing left is refused', async () => {
      const res = await api(owner, 'POST', '/invoices', { member: maker.id });
      expect(res.statusCode).toBe(201);
      invoice = res.json();
      // 10 + 30 + 4 + 2.25 + 4 (booking) + 2.50
      expect(invoice).toMatchObject({
        number: 'INV-7',
        state: 'unpaid',
        total: '52.75',
        paid: '0.00',
        totalPayable: '52.75',
      });
      expect(invoice.currency).toBe('EUR');
      expect(invoice.dueDate).toBe('2026-03-18');
      const onIt = (await api(owner, 'GET', `/charges?invoice=${invoice.id}`)).json();
      expect(onIt.map((c: any) => c.id)).toContain(usage.id);
      const again = await api(owner, 'POST', '/invoices', { member: maker.id });
      expect(again.statusCode).toBe(422);
      expect(again.json().data).toEqual({ noCharges: true });
    });

    it('shows details with net prices and tax categories', async () => {
      const res = await api(maker.token, 'GET', `/invoices/${invoice.id}/details`);
      expect(res.statusCode).toBe(200);
      const details = res.json();
      expect(details.charges).toHaveLength(6);
      expect(details.charges.find((c: any) => c.id === usage.id).netPrice).toBe('3.33');
      expect(details.taxCategories).toEqual([
        { taxPercent: '10', total: '2.50', net: '2.27', tax: '0.23' },
        { taxPercent: '20', total: '50.25', net: '41.88', tax: '8.37' },
      ]);
      expect(details.totalExcludingTax).toBe('44.15');
    });

    it('updates an invoice under optimistic locking', async () => {
      const put = await api(owner, 'PUT', `/invoices/${invoice.id}`, {
        ...invoice,
        notes: 'Thanks',
        total: '0.01',
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ notes: 'Thanks', total: '52.75' });
      expect(
        (await api(owner, 'PUT', `/invoices/${invoice.id}`, { ...invoice, notes: 'x' })).statusCode,
      ).toBe(409);
      invoice = put.json();
    });

    it('cancels: answers {}, frees the charges, keeps the number; twice -> 409', async () => {
      expect(
        (await api(owner, 'POST', `/invoices/${invoice.id}/cancel`, { lockVersion: 1 })).statusCode,
      ).toBe(409);
      const res = await t.call(owner, {
        method: 'POST',
        url: `/api/v1/invoices/${invoice.id}/cancel`,
        headers: { 'content-type': 'application/json' },
        payload: 'false',
      });
      expect(res.body).toBe('{}');
      expect(res.statusCode).toBe(200);
      const after = (await api(owner, 'GET', `/invoices/${invoice.id}`)).json();
      expect(after).toMatchObject({ state: 'cancelled', number: 'INV-7' });
      expect((await api(owner, 'GET', `/charges/${usage.id}`)).json().invoice).toBeNull();
      const twice = await api(owner, 'POST', `/invoices/${invoice.id}/cancel`);
      expect(twice.statusCode).toBe(409);
    });

    it('a payment settles the next invoice, which then reads paid', async () => {
      const created = await api(owner, 'POST', '/invoices', { member: maker.id });
      invoice = created.json();
      expect(invoice).toMatchObject({ number: 'INV-8', state: 'unpaid', total: '52.75' });
      const partial = await api(owner, 'POST', '/payments', {
        member: maker.id,
        total: '50',
        invoices: [invoice.id],
      });
      expect(partial.statusCode).toBe(201);
      expect(partial.json()).toMatchObject({ total: '50.00', state: 'completed', invoices: [invoice.id] });
      expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json()).toMatchObject({
        state: 'unpaid',
        paid: '50.00',
        totalPayable: '2.75',
      });
      // Amounts that round to nothing are refused and settle nothing: 5e-324 (a float that rounds to 0), a tenth of a cent, 0.
      const before = (await api(owner, 'GET', `/payments?member=${maker.id}`)).json().length;
      for (const total of [5e-324, '0.001', '0', 0]) {
        const refused = await api(owner, 'POST', '/payments', { member: maker.id, total });
        expect(refused.statusCode, String(total)).toBe(400);
        expect(refused.json().message).toContain('total');
      }
      expect((await api(owner, 'GET', `/payments?member=${maker.id}`)).json()).toHaveLength(before);
      const rest = await api(owner, 'POST', '/payments', { member: maker.id, total: '2.75' });
      expect(rest.json().invoices).toEqual([invoice.id]);
      const paid = (await api(maker.token, 'GET', `/invoices/${invoice.id}`)).json();
      expect(paid).toMatchObject({ state: 'paid', paid: '52.75', totalPayable: '0.00' });
      expect(paid.payments.map((p: any) => p.amount)).toEqual(['50.00', '2.75']);

      // Taking the second payment back makes the invoice unpaid again.
      expect((await api(owner, 'DELETE', `/payments/${rest.json().id}`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json().state).toBe('unpaid');
      const put = await api(owner, 'PUT', `/payments/${partial.json().id}`, {
        ...partial.json(),
        total: '60.00',
        notes: 'Bank',
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ total: '60.00', notes: 'Bank' });
      expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json().state).toBe('paid');
      expect((await api(owner, 'GET', `/payments/${partial.json().id}`)).json().allocations).toEqual([
        { invoice: invoice.id, amount: '52.75' },
      ]);
    });

    it('requests a pending payment by bank transfer; completing it settles an invoice', async () => {
      await api(owner, 'POST', '/charges', { member: maker.id, description: 'Workshop', price: '20.00' });
      const inv = (await api(owner, 'POST', '/invoices', { member: maker.id })).json();
      expect(inv.number).toBe('INV-9');
      // The 7.25 left over from the 60.00 payment went onto it at once.
      expect(inv).toMatchObject({ paid: '7.25', totalPayable: '12.75' });
      const pending = (
        await api(owner, 'POST', '/payments', { member: maker.id, total: '12.75', state: 'pending' })
      ).json();
      const req = await api(owner, 'POST', `/payments/${pending.id}/request-payment`, { notes: 'March' });
      expect(req.statusCode).toBe(200);
      expect(req.json()).toMatchObject({
        total: '12.75',
        notes: 'March',
        state: 'requested',
        provider: 'manual',
      });
      expect(req.json().reference).toMatch(new RegExp(`^P${pending.id}-[0-9A-F]{8}$`));
      expect(req.json().instructions).toContain(req.json().reference);
      expect((await api(owner, 'GET', `/invoices/${inv.id}`)).json().state).toBe('unpaid');
      const done = await api(owner, 'PUT', `/payments/${pending.id}`, {
        lockVersion: pending.lockVersion,
        state: 'completed',
      });
      expect(done.statusCode).toBe(200);
      expect((await api(owner, 'GET', `/invoices/${inv.id}`)).json().state).toBe('paid');
      const again = await api(owner, 'POST', `/payments/${pending.id}/request-payment`);
      expect(again.statusCode).toBe(409);
    });

    it('shows a plain member only their own billing records', async () => {
      const other = await newMember('other');
      const theirs = (
        await api(owner, 'POST', '/charges', { member: other.id, description: 'x', price: '1' })
      ).json();
      expect((await api(maker.token, 'GET', `/charges/${theirs.id}`)).statusCode).toBe(404);
      const mine = (await api(maker.token, 'GET', '/charges?limit=1000')).json();
      expect(mine.every((c: any) => c.member === maker.id)).toBe(true);
      expect(
        (await api(maker.token, 'GET', '/invoices')).json().every((i: any) => i.member === maker.id),
      ).toBe(true);
      expect(
        (await api(maker.token, 'GET', '/payments')).json().every((p: any) => p.member === maker.id),
      ).toBe(true);
      expect((await api(maker.token, 'GET', '/jobs')).json()).toEqual([]);
      expect((await api(maker.token, 'POST', '/invoices', { member: maker.id })).statusCode).toBe(403);
      const stranger = await t.newAccount('Elsewhere', 'else@test.example');
      expect((await api(stranger.token, 'GET', `/invoices/${invoice.id}`)).statusCode).toBe(404);
      expect((await api(stranger.token, 'GET', `/packages/${pkg.id}`)).statusCode).toBe(404);
    });

    it('numbers invoices gaplessly and uniquely when many are made at once', async () => {
      const members = [];
      for (let i = 0; i < 6; i++) {
        const m = await newMember(`burst${i}`);
        await api(owner, 'POST', '/charges', { member: m.id, description: 'x', price: '1.00' });
        members.push(m.id);
      }
      // Every member twice at once: one of each pair gets the invoice, the other 422 without a number.
      const results = await Promise.all(
        [...members, ...members].map((id) => api(owner, 'POST', '/invoices', { member: id })),
      );
      const made = results.filter((r) => r.statusCode === 201).map((r) => r.json());
      expect(results.filter((r) => r.statusCode === 422)).toHaveLength(6);
      expect(made).toHaveLength(6);
      const numbers = made.map((i) => Number(i.number.slice(4))).sort((a, b) => a - b);
      expect(numbers).toEqual([10, 11, 12, 13, 14, 15]);
      expect(new Set(made.map((i) => i.member)).size).toBe(6);
    });
  });

  describe('jobs', () => {
    it('runs an invoice run queued through POST /jobs and records its result', async () => {
      const m = await newMember('runner');
      await api(owner, 'POST', '/charges', { member: m.id, description: 'x', price: '3.00' });
      expect((await api(admin.token, 'POST', '/jobs', { type: 'nonsense' })).statusCode).toBe(400);
      expect((await api(maker.token, 'POST', '/jobs', { type: 'invoiceRun' })).statusCode).toBe(403);
      const queued = await api(admin.token, 'POST', '/jobs', { type: 'invoiceRun', member: m.id });
      expect(queued.statusCode).toBe(202);
      expect(queued.json()).toMatchObject({
        type: 'invoiceRun',
        state: 'queued',
        progress: 0,
        params: { member: m.id },
      });
      await t.hub.jobs.runDue();
      const job = (await api(admin.token, 'GET', `/jobs/${queued.json().id}`)).json();
      expect(job).toMatchObject({ state: 'succeeded', progress: 100, error: null, attempts: 1 });
      expect(job.result.invoices).toHaveLength(1);
      expect(job.finishedAt).toEqual(expect.any(String));
      const inv = (await api(owner, 'GET', `/invoices/${job.result.invoices[0]}`)).json();
      expect(inv).toMatchObject({ member: m.id, total: '3.00', number: 'INV-16' });
      expect((await api(admin.token, 'GET', '/jobs?type=invoiceRun')).json()[0].id).toBe(job.id);
    });

    it('charges the next month and renews the credit in the recurring package run', async () => {
      clock.current = new Date('2026-04-02T08:00:00.000Z');
      try {
        await t.hub.jobs.scheduleRecurring();
        await t.hub.jobs.runDue();
        const jobs = (await api(owner, 'GET', '/jobs?type=packageBilling')).json();
        expect(jobs[0]).toMatchObject({ state: 'succeeded', params: { recurring: true } });
        const fees = (await api(owner, 'GET', `/charges?member=${maker.id}&q=2026-04-01`)).json();
        expect(fees.map((c: any) => c.price)).toEqual(['30.00']);
        const credits = await t.hub.ctx.db
          .selectFrom('member_credits')
          .selectAll()
          .where('member', '=', maker.id)
          .orderBy('fromDate')
          .execute();
        expect(credits.map((c) => [c.fromDate, c.untilDate, c.remaining])).toEqual([
          ['2026-03-01', '2026-04-01', '0.00'],
          ['2026-04-01', '2026-05-01', '5.00'],
        ]);
        // A second run charges nothing twice.
        await (t.hub.ctx.db as any).deleteFrom('jobs').where('type', '=', 'packageBilling').execute();
        await t.hub.jobs.scheduleRecurring();
        await t.hub.jobs.runDue();
        expect((await api(owner, 'GET', `/charges?member=${maker.id}&q=2026-04-01`)).json()).toHaveLength(1);
      } finally {
        clock.current = new Date('2026-03-04T10:00:00.000Z');
      }
    });

    it('resumes a job left running by a stopped hub, and gives up after repeated interruptions', async () => {
      const db = t.hub.ctx.db;
      const at = new Date().toISOString();
      const stuck = (attempts: number) =>
        db
          .insertInto('jobs')
          .values({
            account: t.owner.accountId,
            type: 'invoiceRun',
            state: 'running',
            attempts,
            runAfter: clock.now().toISOString(),
            startedAt: at,
            createdAt: at,
            updatedAt: at,
            updatedBy: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
      const again = await stuck(1);
      const hopeless = await stuck(3);
      const runner = new JobRunner({ db, clock, logger: t.hub.ctx.logger });
      expect(await runner.recover()).toBe(2);
      const resumed = (await api(owner, 'GET', `/jobs/${again.id}`)).json();
      expect(resumed).toMatchObject({ state: 'queued', error: expect.stringMatching(/restart/) });
      const failed = (await api(owner, 'GET', `/jobs/${hopeless.id}`)).json();
      expect(failed).toMatchObject({ state: 'failed', error: expect.stringMatching(/Interrupted/) });
      await runner.runDue();
      expect((await api(owner, 'GET', `/jobs/${again.id}`)).json()).toMatchObject({
        state: 'succeeded',
        attempts: 2,
      });
    });
  });
});
