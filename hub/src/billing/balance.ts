import type { Db } from '../db/crud.js';
import { balanceAmounts, memberBalanceAmounts, memberBalanceRows } from './billing.repository.js';
import { memberNames } from '../identity/members.repository.js';
import { type Amount, formatMoney, parseMoney, sum } from '../kernel/money.js';

/**
 * A member's prepaid balance: everything they have paid (completed payments) minus everything
 * charged to them (every charge, invoiced or not; charges of a cancelled invoice are uninvoiced
 * again and still count once). Package fees are charges, so they count too.
 */
export async function memberBalance(db: Db, memberId: number): Promise<Amount> {
  const { payments, charges } = await memberBalanceAmounts(db, memberId);
  return sum(payments.map((p) => parseMoney(p.total))) - sum(charges.map((c) => parseMoney(c.price)));
}

/**
 * A member's balance items as the commercial interface shows them: the sums of invoices (not
 * cancelled), completed payments, uninvoiced charges and uninvoiced booking charges, the balance,
 * and the open items behind them (uninvoiced charges, unpaid invoices, completed payments), newest
 * first. `amount` is what an item adds to the balance.
 */
export async function memberBalanceItems(db: Db, memberId: number) {
  const [{ charges, invoices, payments }, balance] = await Promise.all([
    memberBalanceRows(db, memberId),
    memberBalance(db, memberId),
  ]);
  const negative = (v: Amount) => formatMoney(-v);
  const items = [
    ...charges.map((c) => ({
      type: 'charge' as const,
      id: c.id,
      date: c.dateTime,
      description: c.description,
      amount: negative(parseMoney(c.price)),
    })),
    ...invoices
      .filter((i) => i.state !== 'paid')
      .map((i) => ({
        type: 'invoice' as const,
        id: i.id,
        date: i.date,
        description: `Invoice ${i.number}`,
        amount: negative(parseMoney(i.total) - parseMoney(i.paid)),
      })),
    ...payments.map((p) => ({
      type: 'payment' as const,
      id: p.id,
      date: p.date,
      description: p.notes ?? 'Payment',
      amount: formatMoney(parseMoney(p.total)),
    })),
  ].sort((a, b) => b.date.localeCompare(a.date) || b.id - a.id);
  const total = (values: string[]) => formatMoney(sum(values.map((v) => parseMoney(v))));
  return {
    member: memberId,
    balance: formatMoney(balance),
    sumInvoices: total(invoices.map((i) => i.total)),
    sumPayments: total(payments.map((p) => p.total)),
    sumCharges: total(charges.filter((c) => c.booking === null).map((c) => c.price)),
    sumUnpaidBookings: total(charges.filter((c) => c.booking !== null).map((c) => c.price)),
    items,
  };
}

/**
 * The members of an account whose balance is not zero (GET /balances), most owed first: their
 * balance as memberBalance computes it, what is open on their unpaid invoices and what is not
 * invoiced yet. A page of `limit` from `offset`, and the total count.
 */
export async function openBalances(db: Db, accountId: number, page: { limit: number; offset: number }) {
  const { payments, charges, invoices } = await balanceAmounts(db, accountId);
  const of = new Map<number, { balance: Amount; unpaid: Amount; uninvoiced: Amount }>();
  const entry = (member: number) => {
    let e = of.get(member);
    if (!e) {
      e = { balance: 0n, unpaid: 0n, uninvoiced: 0n };
      of.set(member, e);
    }
    return e;
  };
  for (const p of payments) entry(p.member).balance += parseMoney(p.total);
  for (const c of charges) {
    const e = entry(c.member);
    e.balance -= parseMoney(c.price);
    if (c.invoice === null) e.uninvoiced += parseMoney(c.price);
  }
  for (const i of invoices) entry(i.member).unpaid += parseMoney(i.total) - parseMoney(i.paid);
  const open = [...of.entries()]
    .filter(([, e]) => e.balance !== 0n)
    .sort(([a, x], [b, y]) => (x.balance < y.balance ? -1 : x.balance > y.balance ? 1 : a - b));
  const shown = open.slice(page.offset, page.offset + page.limit);
  const names = new Map(
    (
      await memberNames(
        db,
        shown.map(([id]) => id),
      )
    ).map((m) => [m.id, m]),
  );
  return {
    total: open.length,
    balances: shown.map(([member, e]) => {
      const who = names.get(member);
      return {
        member,
        memberName: who ? `${who.firstName} ${who.lastName}`.trim() : `Member ${member}`,
        memberNumber: who?.memberNumber ?? null,
        balance: formatMoney(e.balance),
        unpaidInvoices: formatMoney(e.unpaid),
        uninvoicedCharges: formatMoney(e.uninvoiced),
      };
    }),
  };
}
