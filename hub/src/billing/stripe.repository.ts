import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { type Db, firstWhere, qualified, selectWhere, updateWhere } from '../db/crud.js';
import type { StripePaymentsTable } from '../db/schema.js';

/**
 * What the Stripe payments read and write (billing/stripe*.ts): the space's sealed Stripe keys,
 * `stripe_customers`, `stripe_payments`, `stripe_events`, and the few changes of payments and
 * invoices a Stripe event makes. Functions take the database (or a transaction) first.
 */

export type StripePaymentRow = Selectable<StripePaymentsTable>;

/** The Stripe fields of a space's billing settings (secrets still sealed). */
export function stripeSettingsRow(db: Db, spaceId: number) {
  return firstWhere(db, 'space_billing_settings', { space: spaceId }, [
    'space',
    'account',
    'currency',
    'stripePublicKey',
    'stripeSecretKey',
    'stripeWebhookSecret',
  ]);
}

/** Every space with a webhook signing secret (sealed): a Stripe event is checked against each. */
export function spacesWithWebhookSecret(db: Db) {
  return db
    .selectFrom('space_billing_settings')
    .select(['space', 'account', 'stripeWebhookSecret', 'stripeSecretKey'])
    .where('stripeWebhookSecret', 'is not', null)
    .orderBy('space')
    .execute();
}

/** Writes (or clears, with null) the sealed secret key and webhook secret of a settings row. */
export async function writeStripeSecrets(
  db: Db,
  settingsId: number,
  secrets: { stripeSecretKey?: string | null; stripeWebhookSecret?: string | null },
): Promise<void> {
  if (Object.keys(secrets).length === 0) return;
  await updateWhere(db, 'space_billing_settings', { id: settingsId }, secrets);
}

// ---- customers -------------------------------------------------------------------------------

/** A member's customer at the Stripe account of `keyTag`. */
export function stripeCustomerOf(db: Db, memberId: number, keyTag: string) {
  return firstWhere(db, 'stripe_customers', { member: memberId, keyTag });
}

/** Keeps a member's Stripe customer, unless another request kept one first. */
export async function insertStripeCustomer(
  db: Db,
  values: { account: number; member: number; keyTag: string; customer: string; createdAt: string },
): Promise<void> {
  await (db as unknown as Kysely<any>)
    .insertInto('stripe_customers')
    .values(values)
    .onConflict((oc: any) => oc.columns(['member', 'keyTag']).doNothing())
    .execute();
}

// ---- payments asked of Stripe ----------------------------------------------------------------

/** A new payment asked of Stripe; undefined when its charge slot was taken by another run. */
export async function insertStripePayment(db: Db, values: Insertable<StripePaymentsTable>) {
  return (db as unknown as Kysely<any>)
    .insertInto('stripe_payments')
    .values(values)
    .onConflict((oc: any) => oc.column('chargeSlot').doNothing())
    .returningAll()
    .executeTakeFirst() as Promise<StripePaymentRow | undefined>;
}

/** Writes a Stripe payment's columns; with `whileStates`, only while it is in one of them. */
export async function updateStripePayment(
  db: Db,
  id: number,
  changes: Updateable<StripePaymentsTable>,
  whileStates?: string[],
): Promise<boolean> {
  return (await updateWhere(db, 'stripe_payments', { id, state: whileStates }, changes)) === 1;
}

/**
 * Marks a Stripe payment settled (once): true for the one call that did, so the money is
 * recorded once whatever reports it (the charge's answer, a webhook, a resent webhook).
 */
export async function claimSettlement(db: Db, id: number, at: string): Promise<boolean> {
  const changes = { settledAt: at, updatedAt: at };
  return (await updateWhere(db, 'stripe_payments', { id, settledAt: null }, changes)) === 1;
}

export function stripePaymentById(db: Db, id: number) {
  return firstWhere(db, 'stripe_payments', { id });
}

export function stripePaymentBy(db: Db, column: 'checkoutSession' | 'paymentIntent', value: string) {
  return firstWhere(db, 'stripe_payments', { [column]: value });
}

/** The Stripe payments of an invoice, oldest first. */
export function stripePaymentsOfInvoice(db: Db, invoiceId: number) {
  return selectWhere(db, 'stripe_payments', { invoice: invoiceId }, { orderBy: ['id'] });
}

/** The charges of an account written but not answered by Stripe (a run stopped under them). */
export function unansweredCharges(db: Db, accountId: number) {
  const where = { account: accountId, kind: 'charge', state: 'started' };
  return selectWhere(db, 'stripe_payments', where, { orderBy: ['id'] });
}

/**
 * The account's unpaid invoices whose member saved a payment method at Stripe (or the one
 * member's), oldest first, with the member's payment method (JSON) and the invoice's space.
 */
export function invoicesWithSavedMethod(db: Db, accountId: number, member: number | undefined) {
  let query = db
    .selectFrom('invoices')
    .innerJoin('member_payment_details', 'member_payment_details.member', 'invoices.member')
    .select(
      qualified('invoices', ['id', 'account', 'space', 'member', 'number', 'total', 'paid', 'currency']),
    )
    .select('member_payment_details.paymentMethod')
    .where('invoices.account', '=', accountId)
    .where('invoices.state', '=', 'unpaid')
    .where('member_payment_details.paymentMethod', 'like', '%"stripePaymentMethod"%');
  if (member !== undefined) query = query.where('invoices.member', '=', member);
  return query.orderBy('invoices.id').execute();
}

/**
 * Accounts with charges to make again: failed ones whose retry is due by `now`, and ones a
 * stopped run left unanswered (`started`).
 */
export async function accountsWithRetriesDue(db: Db, now: string): Promise<number[]> {
  const accounts = { columns: ['account'], distinct: true } as const;
  const [failed, started] = await Promise.all([
    selectWhere(
      db,
      'stripe_payments',
      { kind: 'charge', state: 'failed', retryAfter: { '<=': now } },
      accounts,
    ),
    selectWhere(db, 'stripe_payments', { kind: 'charge', state: 'started' }, accounts),
  ]);
  return [...new Set([...failed, ...started].map((r) => r.account))];
}

// ---- events --------------------------------------------------------------------------------

/** Records a Stripe event as handled; false when it was already (the event is then skipped). */
export async function insertStripeEvent(
  db: Db,
  values: { eventId: string; account: number; type: string; receivedAt: string },
): Promise<boolean> {
  const row = await (db as unknown as Kysely<any>)
    .insertInto('stripe_events')
    .values(values)
    .onConflict((oc: any) => oc.column('eventId').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export function stripeEventSeen(db: Db, eventId: string) {
  return firstWhere(db, 'stripe_events', { eventId }, ['id']);
}

/** Forgets the events received before `before` (an ISO time); answers how many. */
export async function purgeStripeEvents(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('stripe_events').where('receivedAt', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- refunds -------------------------------------------------------------------------------

/** A refund lowers the payment's total (and says so in its notes). */
export async function writeRefundedPayment(
  db: Db,
  paymentId: number,
  change: { total: string; notes: string; at: string },
): Promise<void> {
  await updateWhere(db, 'payments', { id: paymentId }, (eb) => ({
    total: change.total,
    notes: change.notes,
    lockVersion: eb('lockVersion', '+', 1),
    updatedAt: change.at,
    updatedBy: null,
  }));
}

/** A pending payment paid through Stripe reads completed (once: false when it was not pending). */
export async function completePendingPayment(
  db: Db,
  paymentId: number,
  change: { total: string; date: string; at: string },
): Promise<boolean> {
  const completed = await updateWhere(db, 'payments', { id: paymentId, state: 'pending' }, (eb) => ({
    state: 'completed',
    method: 'stripe',
    total: change.total,
    date: change.date,
    lockVersion: eb('lockVersion', '+', 1),
    updatedAt: change.at,
    updatedBy: null,
  }));
  return completed === 1;
}
