import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The inputs that once answered 500 or read as another id (issue "hard edges"). */
describeEachDialect('input edges', (dialect) => {
  let t: TestHub;
  const call = (o: any) => t.call(t.owner.token, o);
  beforeAll(async () => {
    t = await startTestHub(dialect);
    await call({
      method: 'POST',
      url: '/api/v1/resources',
      payload: { space: t.owner.spaceId, name: 'Laser' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('query keys named like Object.prototype members are ignored', () => {
    for (const key of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
      it(`?${key}=1`, async () => {
        for (const path of ['members', 'resources', 'resource-logs', 'charges', 'bookings', 'webhooks']) {
          const res = await call({ url: `/api/v1/${path}?${key}=1&${key}=2` });
          expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
        }
      });
    }
  });

  it('a form body with a key named __proto__ is refused as an unknown field, not a crash', async () => {
    const res = await call({
      method: 'POST',
      url: '/api/v1/resource-types',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Printers&toString=1',
    });
    expect(res.statusCode).toBe(400);
  });

  describe('ids are canonical decimals', () => {
    it('reads /members/1', async () => {
      expect((await call({ url: `/api/v1/members/${t.owner.memberId}` })).statusCode).toBe(200);
    });
    for (const spelling of ['%201', '0x1', '1e0', '01', '+1', '1.0', '1%20']) {
      it(`refuses /members/${spelling} with 400 naming the path parameter`, async () => {
        const res = await call({ url: `/api/v1/members/${spelling}` });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain('path.memberId');
      });
    }
    it('refuses a query id such as ?resource=0x1', async () => {
      const res = await call({ url: '/api/v1/resource-logs?resource=0x1' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain('query.resource');
    });
    it('an id beyond the database column is a 4xx, not a database error', async () => {
      // 2^32 is beyond PostgreSQL's integer column (400 there); SQLite just finds no row.
      expect([400, 404]).toContain((await call({ url: '/api/v1/members/4294967296' })).statusCode);
      expect((await call({ url: '/api/v1/members/9999999999999999' })).statusCode).toBe(400);
    });
  });

  describe('money out of range is 400 and stores nothing', () => {
    for (const price of [1e308, -1e308, 2 ** 63, 1e12]) {
      it(`price ${price}`, async () => {
        const res = await call({
          method: 'POST',
          url: '/api/v1/charges',
          payload: { member: t.owner.memberId, description: 'Material', price },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toContain('price');
        expect((await call({ url: '/api/v1/charges' })).json()).toEqual([]);
      });
    }
    it('a tiny number such as 5e-324 rounds to 0', async () => {
      const res = await call({
        method: 'POST',
        url: '/api/v1/packages',
        payload: { name: 'Tiny', recurringFee: 5e-324, setupFee: 12.5 },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ recurringFee: '0.00', setupFee: '12.50' });
    });
  });

  it('an invalid date is 400 and stores nothing', async () => {
    for (const createdAt of ['abc', '2026-13-45T00:00:00Z', '1']) {
      const res = await call({
        method: 'POST',
        url: '/api/v1/resource-logs',
        payload: { resource: 1, type: 'allowed', createdAt },
      });
      expect(res.statusCode, createdAt).toBe(400);
      expect(res.json().message).toContain('createdAt');
    }
    const res = await call({ url: '/api/v1/resource-logs?createdAt=abc' });
    expect(res.statusCode).toBeLessThan(500);
  });

  it('a NUL byte in text never reaches the database as an error', async () => {
    const res = await call({ url: '/api/v1/resource-types?q=%00' });
    expect(res.statusCode).toBeLessThan(500);
  });
});
