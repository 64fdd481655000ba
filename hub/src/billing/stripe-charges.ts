import type Stripe from 'stripe';
import { requiredRow } from '../db/records.js';
import { formatMoney, parseMoney } from '../kernel/money.js';
import { stripeMethodIn } from './payment-details.js';
import {
  deliverNotices,
  idempotencyKey,
  type Notices,
  recordStripeFailure,
  type StripeAccount,
  type StripeDeps,
  settleStripeIntent,
  stripeAccountOf,
  toStripeAmount,
  isStripeError,
  stripeErrors,
} from './stripe.js';
import {
  accountsWithRetriesDue,
  insertStripePayment,
  invoicesWithSavedMethod,
  type StripePaymentRow,
  stripePaymentsOfInvoice,
  unansweredCharges,
  updateStripePayment,
} from './stripe.repository.js';

/**
 * The billing run charges saved payment methods at Stripe (a PaymentIntent, off-session, with
 * the member's saved card or SEPA mandate). Never twice: each charge is a `stripe_payments`
 * row (the invoice's attempt, unique) written and committed BEFORE Stripe is called, with the
 * idempotency key Stripe gets. A run that stops between the two (hub killed, Stripe not
 * answering) leaves the row `started`; the next run sends the same request with the same key,
 * and Stripe answers the charge it made instead of charging again.
 */

/** Attempts per invoice: the first and three retries (stripe.ts retryDays). */
export const MAX_CHARGE_ATTEMPTS = 4;

export interface ChargeSummary {
  /** Charges that succeeded at once (cards). */
  charged: number;
  /** Charges under way (SEPA debits: the result arrives by webhook). */
  processing: number;
  /** Charges Stripe declined (recorded with the reason). */
  failed: number;
}

/** Stripe could not be reached or failed itself: the run stops; the next run resumes. */
export class StripeUnavailable extends Error {
  constructor(cause: unknown) {
    super(
      `Stripe did not answer (${(cause as Error).message}); the charges not answered are resumed by the next run`,
    );
    this.name = 'StripeUnavailable';
  }
}

const unavailable = (err: unknown) => {
  const errors = stripeErrors();
  return (
    !!errors &&
    (err instanceof errors.StripeConnectionError ||
      err instanceof errors.StripeAPIError ||
      err instanceof errors.StripeRateLimitError ||
      (err instanceof errors.StripeError && (err.statusCode ?? 0) >= 500))
  );
};

/**
 * Charges the saved payment methods of the account's members (or the one member) for their
 * unpaid invoices: first resumes charges a stopped run left unanswered, then charges every
 * invoice not charged yet and every failed one whose retry is due.
 */
export async function chargeSavedMethods(
  deps: StripeDeps,
  accountId: number,
  member?: number,
  options: { retriesOnly?: boolean } = {},
): Promise<ChargeSummary> {
  const summary: ChargeSummary = { charged: 0, processing: 0, failed: 0 };
  const accounts = new Map<number, StripeAccount | null>();
  const accountOf = async (space: number) => {
    if (!accounts.has(space)) accounts.set(space, await stripeAccountOf(deps, space));
    return accounts.get(space) ?? null;
  };
  for (const row of await unansweredCharges(deps.db, accountId)) {
    if (member !== undefined && row.member !== member) continue;
    const { space } = await spaceOfMember(deps, row.member);
    const account = await accountOf(space);
    if (account) await sendCharge(deps, account, row, summary);
  }
  const now = deps.clock.now();
  for (const invoice of await invoicesWithSavedMethod(deps.db, accountId, member)) {
    const method = stripeMethodIn(invoice.paymentMethod, '');
    const account = await accountOf(invoice.space);
    if (!method || !account) continue;
    const attempt = nextAttempt(await stripePaymentsOfInvoice(deps.db, invoice.id), now.toISOString());
    if (attempt === null || (attempt === 1 && options.retriesOnly)) continue;
    const amount = parseMoney(invoice.total) - parseMoney(invoice.paid);
    if (amount <= 0n) continue;
    const at = now.toISOString();
    // Written and committed before Stripe is called; the slot makes it the only attempt `n`.
    const row = await insertStripePayment(deps.db, {
      account: invoice.account,
      member: invoice.member,
      invoice: invoice.id,
      kind: 'charge',
      attempt,
      idempotencyKey: idempotencyKey(`invoice-${invoice.id}-attempt-${attempt}`),
      chargeSlot: `${invoice.id}:${attempt}`,
      customer: method.stripeCustomer,
      paymentMethod: method.stripePaymentMethod,
      amount: formatMoney(amount),
      currency: account.currency,
      state: 'started',
      createdAt: at,
      updatedAt: at,
    });
    if (row) await sendCharge(deps, account, row, summary);
  }
  return summary;
}

/** The attempt to make now for an invoice, or null (one is under way, paid, or no retry is due). */
function nextAttempt(rows: StripePaymentRow[], now: string): number | null {
  if (rows.some((r) => ['started', 'processing'].includes(r.state))) return null;
  if (rows.some((r) => r.state === 'succeeded' && r.kind !== 'setup')) return null;
  const charges = rows.filter((r) => r.kind === 'charge');
  const last = charges.at(-1);
  if (!last) return 1;
  if (last.state !== 'failed' || last.retryAfter === null || last.retryAfter > now) return null;
  return last.attempt < MAX_CHARGE_ATTEMPTS ? last.attempt + 1 : null;
}

const spaceOfMember = (deps: StripeDeps, memberId: number) => requiredRow(deps.db, 'members', memberId);

/** Sends a charge's PaymentIntent (its stored key: a resent one answers the same intent) and records the answer. */
async function sendCharge(
  deps: StripeDeps,
  account: StripeAccount,
  row: StripePaymentRow,
  summary: ChargeSummary,
): Promise<void> {
  const notices: Notices = [];
  // A resent request must be the same as the first: everything comes from the stored row.
  const invoice = row.invoice ? await requiredRow(deps.db, 'invoices', row.invoice) : null;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await account.client.paymentIntents.create(
      {
        amount: toStripeAmount(parseMoney(row.amount), row.currency),
        currency: row.currency.toLowerCase(),
        customer: row.customer ?? undefined,
        payment_method: row.paymentMethod ?? undefined,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        off_session: true,
        confirm: true,
        description: invoice ? `Invoice ${invoice.number}` : undefined,
        metadata: {
          hubPayment: String(row.id),
          hubReference: row.idempotencyKey,
          hubMember: String(row.member),
          ...(row.invoice ? { hubInvoice: String(row.invoice) } : {}),
        },
      },
      { idempotencyKey: row.idempotencyKey },
    );
  } catch (err) {
    if (unavailable(err)) throw new StripeUnavailable(err);
    if (!isStripeError(err)) throw err;
    // A decline (or a refused request): recorded with Stripe's reason.
    const raw = err.raw as { payment_intent?: { id?: string } } | undefined;
    await deps.db.transaction().execute((trx) =>
      recordStripeFailure(
        trx,
        row,
        {
          code: err.decline_code ?? err.code ?? null,
          message: err.message,
          paymentIntent: raw?.payment_intent?.id ?? null,
        },
        deps.clock.now(),
        notices,
      ),
    );
    summary.failed++;
    await deliverNotices(deps, notices);
    return;
  }
  await recordIntent(deps, row, intent, notices, summary);
  await deliverNotices(deps, notices);
}

/** What a PaymentIntent's state means for its charge. */
async function recordIntent(
  deps: StripeDeps,
  row: StripePaymentRow,
  intent: Stripe.PaymentIntent,
  notices: Notices,
  summary: ChargeSummary,
): Promise<void> {
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    if (intent.status === 'succeeded') {
      await settleStripeIntent(trx, row, intent, at, notices);
      summary.charged++;
    } else if (intent.status === 'processing') {
      await updateStripePayment(
        trx,
        row.id,
        { state: 'processing', paymentIntent: intent.id, updatedAt: at.toISOString() },
        ['started'],
      );
      summary.processing++;
    } else {
      const error = intent.last_payment_error;
      await recordStripeFailure(
        trx,
        row,
        {
          code:
            error?.decline_code ??
            error?.code ??
            (intent.status === 'requires_action' ? 'authentication_required' : null),
          message: error?.message ?? `The payment needs the member (${intent.status})`,
          paymentIntent: intent.id,
        },
        at,
        notices,
      );
      summary.failed++;
    }
  });
}

/**
 * Retries due, and charges a stopped run left unanswered, in every account (the job runner calls
 * this hourly). First charges are the billing run's only.
 */
export async function chargeRetriesDue(deps: StripeDeps): Promise<void> {
  for (const account of await accountsWithRetriesDue(deps.db, deps.clock.now().toISOString())) {
    try {
      await chargeSavedMethods(deps, account, undefined, { retriesOnly: true });
    } catch (err) {
      deps.logger.error({ err, account }, 'charging the due retries failed');
    }
  }
}
