import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCharge, spendCredits } from '../../hub/src/billing/charges.js';
import { createInvoice, invoiceDetails } from '../../hub/src/billing/invoices.js';
import { localTime } from '../../hub/src/billing/local-time.js';
import { formatMoney, netOf, parseMoney, percentOf } from '../../hub/src/kernel/money.js';
import { timeWindow } from '../../hub/src/billing/rules.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const cents = (n: number) => formatMoney(BigInt(n) * 100n);

describe('money', () => {
  it('parses and formats decimal strings without losing a digit', () => {
    fc.assert(
      fc.property(fc.integer({ min: -99_999_999, max: 99_999_999 }), (n) => {
        const text = cents(n);
        expect(parseMoney(text)).toBe(BigInt(n) * 100n);
        expect(Number(text)).toBeCloseTo(n / 100, 6);
      }),
    );
    expect(formatMoney(parseMoney('0.0125'))).toBe('0.0125');
    expect(() => parseMoney('1.2.3')).toThrow();
  });

  it('splits a gross price into net and tax that add up, rounding half away from zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.constantFrom('0', '7', '10', '19', '20', '25.5'),
        (n, tax) => {
          const gross = parseMoney(cents(n));
          const net = netOf(gross, parseMoney(tax));
          expect(net <= gross).toBe(true);
          expect(net % 100n).toBe(0n);
        },
      ),
    );
    expect(formatMoney(percentOf(parseMoney('10.05'), parseMoney('10')))).toBe('1.01');
    expect(formatMoney(netOf(parseMoney('50.25'), parseMoney('20')))).toBe('41.88');
  });
});

describe('permission time tables', () => {
  const custom = (times: unknown[]) => ({ timeType: 'custom', times: JSON.stringify(times) });
  it('runs a window to its end and across midnight into the next day', () => {
    const p = custom([
      { dayOfWeek: 1, fromTime: '18:00', untilTime: '24:00' },
      { dayOfWeek: 2, fromTime: '00:00', untilTime: '06:00' },
    ]);
    // Monday 2026-03-02 22:00 in Vienna (21:00 UTC): 8 hours left.
    const local = localTime(new Date('2026-03-02T21:00:00Z'), 'Europe/Vienna');
    expect(local).toMatchObject({ date: '2026-03-02', dayOfWeek: 1, secondOfDay: 22 * 3600 });
    expect(timeWindow(p, local)).toEqual({ allowed: true, secondsLeft: 8 * 3600 });
    expect(timeWindow(p, localTime(new Date('2026-03-03T06:00:00Z'), 'Europe/Vienna')).allowed).toBe(false);
    expect(timeWindow({ timeType: 'always', times: '[]' }, local)).toEqual({
      allowed: true,
      secondsLeft: null,
    });
  });
});

describe('billing properties on the database', () => {
  let t: TestHub;
  let seq = 0;
  beforeAll(async () => {
    t = await startTestHub('sqlite');
    await t.hub.jobs.stop();
  });
  afterAll(async () => t?.close());

  const newMember = async () => {
    const at = new Date().toISOString();
    const row = await t.hub.ctx.db
      .insertInto('members')
      .values({
        account: t.owner.accountId,
        space: t.owner.spaceId,
        firstName: `p${++seq}`,
        lastName: '',
        createdAt: at,
        updatedAt: at,
        updatedBy: null,
      } as any)
      .returningAll()
      .executeTakeFirstOrThrow();
    return row;
  };

  it('an invoice total equals the sum of its charges, and its details add up to it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -5_000, max: 200_000 }), fc.constantFrom('0', '10', '20')), {
          minLength: 1,
          maxLength: 12,
        }),
        async (prices) => {
          const member = await newMember();
          for (const [n, tax] of prices) {
            await insertCharge(t.hub.ctx.db, {
              account: member.account,
              member: member.id,
              dateTime: new Date().toISOString(),
              description: 'p',
              price: BigInt(n) * 100n,
              taxPercent: tax,
              calculated: false,
              updatedBy: null,
              at: new Date().toISOString(),
            });
          }
          const invoice = await t.hub.ctx.db
            .transaction()
            .execute((trx) => createInvoice(trx, member.account, { member: member.id }, new Date(), null));
          const expected = prices.reduce((s, [n]) => s + n, 0);
          expect(invoice.total).toBe(formatMoney(BigInt(expected) * 100n));
          const details = await invoiceDetails(t.hub.ctx.db, invoice);
          const categoryTotal = details.taxCategories.reduce((s, c) => s + parseMoney(c.total), 0n);
          expect(formatMoney(categoryTotal)).toBe(invoice.total);
          for (const c of details.taxCategories) {
            expect(parseMoney(c.net) + parseMoney(c.tax)).toBe(parseMoney(c.total));
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('credits never go negative and give exactly what they have, however sessions draw on them', async () => {
    const at = new Date().toISOString();
    const stamps = { createdAt: at, updatedAt: at, updatedBy: null };
    const pkg = await t.hub.ctx.db
      .insertInto('packages')
      .values({ account: t.owner.accountId, name: 'p', ...stamps })
      .returning('id')
      .executeTakeFirstOrThrow();
    const packageCredit = await t.hub.ctx.db
      .insertInto('package_credits')
      .values({ account: t.owner.accountId, package: pkg.id, ...stamps })
      .returning('id')
      .executeTakeFirstOrThrow();
    const resource = { id: 1, type: null };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 1, maxLength: 8 }),
        async (credits, sessions) => {
          const member = await newMember();
          const mp = await t.hub.ctx.db
            .insertInto('member_packages')
            .values({
              account: member.account,
              member: member.id,
              package: pkg.id,
              fromDate: '2026-01-01',
              ...stamps,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          for (const [i, n] of credits.entries()) {
            await t.hub.ctx.db
              .insertInto('member_credits')
              .values({
                account: member.account,
                member: member.id,
                memberPackage: mp.id,
                packageCredit: packageCredit.id,
                scope: 'global',
                amount: cents(n),
                remaining: cents(n),
                fromDate: `2026-01-0${i + 1}`,
                untilDate: null,
                ...stamps,
              })
              .execute();
          }
          let taken = 0n;
          for (const n of sessions) {
            const wanted = BigInt(n) * 100n;
            const got = await spendCredits(
              t.hub.ctx.db,
              member,
              { resource, scope: 'usage', date: '2026-02-01' },
              wanted,
              {},
              new Date().toISOString(),
            );
            expect(got >= 0n && got <= wanted).toBe(true);
            taken += got;
          }
          const rows = await t.hub.ctx.db
            .selectFrom('member_credits')
            .select('remaining')
            .where('member', '=', member.id)
            .execute();
          for (const r of rows) expect(parseMoney(r.remaining) >= 0n).toBe(true);
          const total = BigInt(credits.reduce((s, n) => s + n, 0)) * 100n;
          const want = BigInt(sessions.reduce((s, n) => s + n, 0)) * 100n;
          expect(taken).toBe(total < want ? total : want);
          const left = rows.reduce((s, r) => s + parseMoney(r.remaining), 0n);
          expect(left).toBe(total - taken);
        },
      ),
      { numRuns: 30 },
    );
  });
});
