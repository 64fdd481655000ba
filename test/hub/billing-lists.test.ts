import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The filters of the charge, invoice and payment lists, and the totals over every filtered row. */
describeEachDialect('billing lists: date ranges, states and totals', (dialect) => {
  let t: TestHub;
  let owner: string;
  let ada: { id: number; token: string };
  let bo: { id: number; token: string };
  const api = async (token: string, method: string, url: string, payload?: unknown) => {
    const res = await t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
  };
  const newMember = async (firstName: string) => {
    const m = (
      await api(owner, 'POST', '/members', { firstName, emailAddress: `${firstName}@lists.example` })
    ).body;
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).body;
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).body.token;
    return { id: m.id as number, token: token as string };
  };
  const charge = async (member: number, dateTime: string, price: string) => {
    const res = await api(owner, 'POST', '/charges', {
      member,
      dateTime,
      price,
      description: `Use ${price}`,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  /** Every page of a list, following the limit, as a client exporting it does. */
  const all = async (token: string, path: string) => {
    const rows: any[] = [];
    for (;;) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await api(token, 'GET', `${path}${sep}limit=2&offset=${rows.length}`);
      expect(res.status).toBe(200);
      rows.push(...res.body);
      if (rows.length >= Number(res.headers['x-total-count'])) return rows;
    }
  };
  const cents = (amounts: string[]) => amounts.reduce((a, s) => a + Math.round(Number(s) * 100), 0);

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    ada = await newMember('Ada');
    bo = await newMember('Bo');
    await charge(ada.id, '2026-10-31T23:59:59.000Z', '1.10');
    await charge(ada.id, '2026-11-01T00:00:00.000Z', '2.20');
    await charge(ada.id, '2026-11-15T12:00:00.000Z', '3.30');
    await charge(ada.id, '2026-11-30T23:59:59.999Z', '4.40');
    await charge(ada.id, '2026-12-01T00:00:00.000Z', '5.50');
    await charge(bo.id, '2026-11-10T09:00:00.000Z', '10.05');
    await charge(bo.id, '2026-11-11T09:00:00.000Z', '-0.05');
  });
  afterAll(async () => {
    await t?.close();
    await t?.db.dispose();
  });

  it('charges: a date range takes whole UTC days at both ends; totals cover every filtered row, not one page', async () => {
    const november = await all(owner, '/charges?from=2026-11-01&until=2026-11-30');
    expect(november.map((c) => c.price).sort()).toEqual(['-0.05', '10.05', '2.20', '3.30', '4.40']);
    const totals = await api(owner, 'GET', '/charges/totals?from=2026-11-01&until=2026-11-30');
    expect(totals.status).toBe(200);
    expect(totals.body).toEqual({ count: 5, total: '19.90', invoiced: '0.00', uninvoiced: '19.90' });
    expect(cents(november.map((c) => c.price))).toBe(1990);

    const adas = await all(owner, `/charges?member=${ada.id}&from=2026-11-01`);
    expect(adas.map((c) => c.price).sort()).toEqual(['2.20', '3.30', '4.40', '5.50']);
    expect((await api(owner, 'GET', `/charges/totals?member=${ada.id}&from=2026-11-01`)).body).toMatchObject({
      count: 4,
      total: '15.40',
    });
  });

  it('charges on an invoice: uninvoiced filters both ways, and the totals split invoiced from open', async () => {
    const invoice = await api(owner, 'POST', '/invoices', { member: bo.id, date: '2026-11-20' });
    expect(invoice.status).toBe(201);
    expect(invoice.body.total).toBe('10.00');
    const open = await all(owner, '/charges?uninvoiced=true');
    expect(open.every((c) => c.invoice === null)).toBe(true);
    expect(open).toHaveLength(5);
    const onInvoices = await all(owner, '/charges?uninvoiced=false');
    expect(onInvoices.map((c) => c.member)).toEqual([bo.id, bo.id]);
    expect((await api(owner, 'GET', '/charges/totals')).body).toEqual({
      count: 7,
      total: '26.50',
      invoiced: '10.00',
      uninvoiced: '16.50',
    });
  });

  it('invoices and payments: date range, state, and totals of paid and open amounts', async () => {
    const adaInvoice = (await api(owner, 'POST', '/invoices', { member: ada.id, date: '2026-12-02' })).body;
    expect(adaInvoice.total).toBe('16.50');
    const paid = await api(owner, 'POST', '/payments', {
      member: ada.id,
      total: '6.50',
      date: '2026-12-03',
      invoices: [adaInvoice.id],
    });
    expect(paid.status).toBe(201);
    const pending = await api(owner, 'POST', '/payments', {
      member: bo.id,
      total: '10.00',
      date: '2026-11-25',
      state: 'pending',
    });
    expect(pending.status).toBe(201);

    expect((await all(owner, '/invoices?from=2026-12-01')).map((i) => i.id)).toEqual([adaInvoice.id]);
    expect((await api(owner, 'GET', '/invoices/totals')).body).toEqual({
      count: 2,
      total: '26.50',
      paid: '6.50',
      open: '20.00',
    });
    expect((await api(owner, 'GET', '/invoices/totals?until=2026-11-30')).body).toMatchObject({
      count: 1,
      open: '10.00',
    });
    expect((await all(owner, '/payments?state=pending')).map((p) => p.total)).toEqual(['10.00']);
    expect((await api(owner, 'GET', '/payments/totals')).body).toEqual({
      count: 2,
      total: '16.50',
      completed: '6.50',
      pending: '10.00',
    });
    expect((await api(owner, 'GET', '/payments/totals?from=2026-12-01&until=2026-12-31')).body).toMatchObject(
      {
        count: 1,
        total: '6.50',
      },
    );
  });

  it('a member sees the totals of their own records only; another account sees none of these', async () => {
    expect((await api(bo.token, 'GET', '/charges/totals')).body).toMatchObject({ count: 2, total: '10.00' });
    expect((await api(bo.token, 'GET', '/invoices/totals')).body).toMatchObject({ count: 1, open: '10.00' });
    const other = await t.newAccount('Other space', 'owner@other-lists.example');
    expect((await api(other.token, 'GET', '/charges/totals')).body).toEqual({
      count: 0,
      total: '0.00',
      invoiced: '0.00',
      uninvoiced: '0.00',
    });
  });

  it('bad filters answer 400 naming the field, on the lists and on the totals', async () => {
    for (const path of ['/charges', '/charges/totals', '/invoices', '/invoices/totals', '/payments/totals']) {
      const backwards = await api(owner, 'GET', `${path}?from=2026-11-30&until=2026-11-01`);
      expect(backwards.status).toBe(400);
      expect(backwards.body.message).toContain('query.until');
      const badDay = await api(owner, 'GET', `${path}?from=2026-13-01`);
      expect(badDay.status).toBe(400);
      expect(badDay.body.message).toContain('query.from');
    }
    const badState = await api(owner, 'GET', '/invoices/totals?state=overdue');
    expect(badState.status).toBe(400);
    expect(badState.body.message).toContain('query.state');
  });

  it('the totals are in the OpenAPI document', async () => {
    const doc = (await api(owner, 'GET', '/openapi.json')).body;
    for (const path of ['/api/v1/charges/totals', '/api/v1/invoices/totals', '/api/v1/payments/totals']) {
      expect(doc.paths[path]?.get?.responses?.['200']).toBeTruthy();
    }
    const params = doc.paths['/api/v1/charges'].get.parameters.map((p: any) => p.name);
    expect(params).toEqual(expect.arrayContaining(['from', 'until', 'member', 'uninvoiced']));
  });
});
