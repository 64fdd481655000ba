import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import type { Logger } from '@makerspace/shared';
import type { Clock, Notifications } from '../context.js';
import type { Db } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import { requiredRow } from '../db/records.js';
import { conflict, HttpError, unprocessable } from '../errors.js';
import { type Amount, formatMoney, parseMoney } from '../kernel/money.js';
import type { TokenBox } from '../secrets.js';
import { spaceTimeZone } from '../spaces/spaces.repository.js';
import { allocatePayment, releasePayment } from './invoices.js';
import { localTime } from './local-time.js';
import { ManualTransferProvider, type PaymentProvider, type PaymentRow } from './payments.js';
import { markRequestsPaid } from './payments.repository.js';
import { stripePaymentMethodOf, writeStripePaymentMethod } from './payment-details.js';
import {
  claimSettlement,
  completePendingPayment,
  insertStripeCustomer,
  insertStripePayment,
  type StripePaymentRow,
  stripeCustomerOf,
  stripePaymentsOfInvoice,
  stripeSettingsRow,
  updateStripePayment,
  writeRefundedPayment,
} from './stripe.repository.js';
import { type PaymentNotice, sendPaymentNotice } from './stripe-notices.js';

/**
 * Card and SEPA direct debit payments through Stripe (docs/PAYMENTS.md, "Stripe"): the space's
 * keys, the member's Stripe customer, Checkout sessions (pay an invoice, top up the balance,
 * save a payment method) and the recording of what Stripe reports (a payment, a failure, a
 * refund). Charges of saved methods by the billing run: stripe-charges.ts; Stripe's events:
 * stripe-events.ts.
 */

export type { StripePaymentRow } from './stripe.repository.js';

/** Where and how the hub talks to Stripe: one client per secret key, made on first use. */
export class StripeGateway {
  private readonly clients = new Map<string, Stripe>();
  private readonly endpoint: { host?: string; port?: number; protocol?: 'http' | 'https' };

  constructor(
    /** HUB_STRIPE_API_URL; Stripe's own API when unset. */
    apiUrl?: string,
    private readonly options: { maxNetworkRetries?: number; timeoutMs?: number } = {},
  ) {
    if (apiUrl) {
      const url = new URL(apiUrl);
      const protocol = url.protocol === 'http:' ? 'http' : 'https';
      this.endpoint = {
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
        protocol,
      };
    } else this.endpoint = {};
  }

  async client(secretKey: string): Promise<Stripe> {
    let client = this.clients.get(secretKey);
    if (!client) {
      const StripeClient = await stripeLibrary();
      client =
        this.clients.get(secretKey) ??
        new StripeClient(secretKey, {
          ...this.endpoint,
          maxNetworkRetries: this.options.maxNetworkRetries ?? 2,
          timeout: this.options.timeoutMs ?? 30_000,
          appInfo: { name: 'makerspace-hub' },
        });
      this.clients.set(secretKey, client);
    }
    return client;
  }

  /** Checks a webhook's signature (Stripe's own verifier) and answers its event; throws when it does not match. */
  async verify(rawBody: Buffer, signature: string, secret: string): Promise<Stripe.Event> {
    return (await stripeLibrary()).webhooks.constructEvent(rawBody, signature, secret);
  }
}

let loaded: typeof Stripe | undefined;

/**
 * Stripe's library, loaded on first use: about 200 modules and several MiB that a hub whose
 * spaces take no online payments never needs (docs/PERFORMANCE.md, "Memory").
 */
async function stripeLibrary(): Promise<typeof Stripe> {
  loaded ??= (await import('stripe')).default;
  return loaded;
}

/**
 * Stripe's error classes once the library is loaded; before that no Stripe call was made, so
 * no error can be one of them.
 */
export function stripeErrors(): typeof Stripe.errors | undefined {
  return loaded?.errors;
}

/** Is `err` an error of a Stripe call? */
export function isStripeError(err: unknown): err is Stripe.errors.StripeError {
  const errors = stripeErrors();
  return !!errors && err instanceof errors.StripeError;
}

/** What the hub and Stripe work with: the port's services. */
export interface StripeDeps {
  db: Db;
  clock: Clock;
  tokens: TokenBox;
  logger: Logger;
  stripe: StripeGateway;
  /** Where Checkout sends the member back (HUB_PUBLIC_URL, else the local address). */
  linkBase: string;
  /** Tells members (and admins) of payments received and failed (notifications/). */
  notifications?: Pick<Notifications, 'payment'>;
}

// ---- the space's Stripe account --------------------------------------------------------------

export interface StripeAccount {
  space: number;
  account: number;
  currency: string;
  publicKey: string | null;
  /** Which Stripe account: a MAC of the secret key (a new key may be another account). */
  keyTag: string;
  client: Stripe;
}

/** The space's Stripe connection, or null while its secret key is not set. */
export async function stripeAccountOf(deps: StripeDeps, spaceId: number): Promise<StripeAccount | null> {
  const row = await stripeSettingsRow(deps.db, spaceId);
  if (!row?.stripeSecretKey) return null;
  const secretKey = deps.tokens.open(row.stripeSecretKey);
  return {
    space: row.space,
    account: row.account,
    currency: (row.currency ?? 'EUR').toUpperCase(),
    publicKey: row.stripePublicKey,
    keyTag: deps.tokens.mac(`stripe-account:${secretKey}`).slice(0, 22),
    client: await deps.stripe.client(secretKey),
  };
}

export async function requireStripeAccount(deps: StripeDeps, spaceId: number): Promise<StripeAccount> {
  const account = await stripeAccountOf(deps, spaceId);
  if (!account) {
    throw conflict('Online payment is not set up for this space (its Stripe secret key is not set)', {
      stripeNotConfigured: true,
    });
  }
  return account;
}

/** Checks the write-only Stripe secrets of a billing settings change; answers them sealed. */
export function sealStripeSecrets(
  tokens: TokenBox,
  body: { stripeSecretKey?: string | null; stripeWebhookSecret?: string | null },
) {
  const sealed: { stripeSecretKey?: string | null; stripeWebhookSecret?: string | null } = {};
  if (body.stripeSecretKey !== undefined) {
    const key = body.stripeSecretKey?.trim() || null;
    if (key !== null && !/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.test(key)) {
      throw unprocessable(
        'stripeSecretKey must be a Stripe secret key (sk_test_..., sk_live_... or rk_...)',
        {
          stripeSecretKey: 'invalid',
        },
      );
    }
    sealed.stripeSecretKey = key === null ? null : tokens.seal(key);
  }
  if (body.stripeWebhookSecret !== undefined) {
    const secret = body.stripeWebhookSecret?.trim() || null;
    if (secret !== null && !/^whsec_[A-Za-z0-9+/=]+$/.test(secret)) {
      throw unprocessable('stripeWebhookSecret must be a webhook signing secret (whsec_...)', {
        stripeWebhookSecret: 'invalid',
      });
    }
    sealed.stripeWebhookSecret = secret === null ? null : tokens.seal(secret);
  }
  return sealed;
}

// ---- money in Stripe's units ---------------------------------------------------------------

const zeroDecimal = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const unitOf = (currency: string) => (zeroDecimal.has(currency.toUpperCase()) ? 10_000n : 100n);

/** An amount in the currency's smallest unit, as Stripe takes it (cents for EUR). */
export function toStripeAmount(amount: Amount, currency: string): number {
  return Number(amount / unitOf(currency));
}

export function fromStripeAmount(amount: number, currency: string): Amount {
  return BigInt(amount) * unitOf(currency);
}

/** Card everywhere; SEPA direct debit for payments in euros. */
export const paymentMethodTypes = (currency: string): ('card' | 'sepa_debit')[] =>
  currency.toUpperCase() === 'EUR' ? ['card', 'sepa_debit'] : ['card'];

/** A Stripe idempotency key: what it is for, and random so no other hub on the Stripe account reuses it. */
export const idempotencyKey = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;

// ---- customers -----------------------------------------------------------------------------

type MemberRow = Awaited<ReturnType<typeof requiredRow<'members'>>>;

/** The member's Stripe customer, made at Stripe on first need. */
export async function stripeCustomer(deps: StripeDeps, account: StripeAccount, member: MemberRow) {
  const known = await stripeCustomerOf(deps.db, member.id, account.keyTag);
  if (known) return known.customer;
  const customer = await account.client.customers.create(
    {
      name: `${member.firstName} ${member.lastName}`.trim() || undefined,
      email: member.emailAddress ?? undefined,
      metadata: { hubMember: String(member.id), hubAccount: String(member.account) },
    },
    { idempotencyKey: idempotencyKey(`customer-member-${member.id}`) },
  );
  await insertStripeCustomer(deps.db, {
    account: member.account,
    member: member.id,
    keyTag: account.keyTag,
    customer: customer.id,
    createdAt: deps.clock.now().toISOString(),
  });
  // Two requests at once: the first one kept counts.
  return (await stripeCustomerOf(deps.db, member.id, account.keyTag))?.customer ?? customer.id;
}

// ---- Checkout ------------------------------------------------------------------------------

export type CheckoutPurpose =
  | { kind: 'invoice'; invoice: { id: number; number: string; total: string; paid: string; state: string } }
  | { kind: 'topUp'; amount: Amount }
  /** A payment request (POST /payments/{id}/request-payment): pays the pending payment. */
  | { kind: 'request'; payment: number; amount: Amount; reference: string }
  | { kind: 'setup' };

/** Stripe's answer to a failed call, for the member or admin (the message names what failed). */
export function stripeRefused(err: unknown): HttpError {
  const message = isStripeError(err) ? err.message : (err as Error).message;
  return new HttpError(502, `Stripe refused the request: ${message}`, { stripe: 'refused' });
}

/**
 * Opens a Stripe Checkout session for the member: pay an invoice's open amount, top up the
 * prepaid balance, or save a card or SEPA mandate (setup). The row that tracks it is written
 * before Stripe is called. Answers Checkout's URL.
 */
export async function startCheckout(
  deps: StripeDeps,
  memberId: number,
  purpose: CheckoutPurpose,
): Promise<{ id: string; url: string }> {
  const member = await requiredRow(deps.db, 'members', memberId);
  const account = await requireStripeAccount(deps, member.space);
  const { currency } = account;
  let amount: Amount = 0n;
  let description = '';
  if (purpose.kind === 'invoice') {
    const { invoice } = purpose;
    if (invoice.state !== 'unpaid') {
      throw conflict(`Invoice ${invoice.number} is ${invoice.state}; there is nothing to pay`, {
        invoiceState: invoice.state,
      });
    }
    amount = parseMoney(invoice.total) - parseMoney(invoice.paid);
    if (amount <= 0n)
      throw conflict(`Invoice ${invoice.number} has nothing left to pay`, { nothingToPay: true });
    // A debit under way (or a charge not answered yet) may still pay it: not twice.
    const underWay = (await stripePaymentsOfInvoice(deps.db, invoice.id)).some(
      (r) => r.state === 'processing' || (r.kind === 'charge' && r.state === 'started'),
    );
    if (underWay) {
      throw conflict(`A payment of invoice ${invoice.number} is under way; its result comes within days`, {
        paymentUnderWay: true,
      });
    }
    description = `Invoice ${invoice.number}`;
  } else if (purpose.kind === 'topUp') {
    amount = purpose.amount;
    description = 'Prepaid balance top-up';
  } else if (purpose.kind === 'request') {
    amount = purpose.amount;
    description = `Payment ${purpose.reference}`;
  }
  let customer: string;
  try {
    customer = await stripeCustomer(deps, account, member);
  } catch (err) {
    throw stripeRefused(err);
  }
  const at = deps.clock.now().toISOString();
  const kind = purpose.kind === 'setup' ? 'setup' : 'checkout';
  const row = (await insertStripePayment(deps.db, {
    account: member.account,
    member: member.id,
    invoice: purpose.kind === 'invoice' ? purpose.invoice.id : null,
    kind,
    attempt: 1,
    idempotencyKey: idempotencyKey(`${kind}-member-${member.id}`),
    chargeSlot: null,
    customer,
    paymentMethod: null,
    amount: formatMoney(amount),
    currency,
    state: 'started',
    // A request's pending payment is the one its money completes.
    payment: purpose.kind === 'request' ? purpose.payment : null,
    createdAt: at,
    updatedAt: at,
  }))!;
  const metadata = {
    hubPayment: String(row.id),
    hubReference: row.idempotencyKey,
    hubMember: String(member.id),
    ...(row.invoice ? { hubInvoice: String(row.invoice) } : {}),
  };
  const back = `${deps.linkBase.replace(/\/+$/, '')}/`;
  const params: Stripe.Checkout.SessionCreateParams =
    purpose.kind === 'setup'
      ? {
          mode: 'setup',
          customer,
          currency: currency.toLowerCase(),
          allowed_payment_method_types: paymentMethodTypes(currency),
          setup_intent_data: { metadata },
          metadata,
          success_url: `${back}?stripe=saved`,
          cancel_url: `${back}?stripe=cancelled`,
        }
      : {
          mode: 'payment',
          customer,
          allowed_payment_method_types: paymentMethodTypes(currency),
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: currency.toLowerCase(),
                unit_amount: toStripeAmount(amount, currency),
                product_data: { name: description },
              },
            },
          ],
          payment_intent_data: { metadata, description },
          metadata,
          client_reference_id: row.idempotencyKey,
          success_url: `${back}?stripe=paid`,
          cancel_url: `${back}?stripe=cancelled`,
        };
  let session: Stripe.Checkout.Session;
  try {
    session = await account.client.checkout.sessions.create(params, { idempotencyKey: row.idempotencyKey });
  } catch (err) {
    await updateStripePayment(deps.db, row.id, {
      state: 'failed',
      failureMessage: (err as Error).message,
      updatedAt: deps.clock.now().toISOString(),
    });
    throw stripeRefused(err);
  }
  await updateStripePayment(
    deps.db,
    row.id,
    { state: 'open', checkoutSession: session.id, updatedAt: deps.clock.now().toISOString() },
    ['started'],
  );
  if (!session.url) throw stripeRefused(new Error('Checkout answered no URL'));
  return { id: session.id, url: session.url };
}

// ---- what Stripe reports ---------------------------------------------------------------------

/** Notices to give after the transaction that recorded them commits. */
export type Notices = PaymentNotice[];

/** Calls the notification hooks for what a committed transaction recorded (errors are logged). */
export async function deliverNotices(
  deps: { db: Db; logger: Logger; clock: Clock; notifications?: Pick<Notifications, 'payment'> },
  notices: Notices,
): Promise<void> {
  const at = deps.clock.now().toISOString();
  for (const notice of notices) {
    try {
      await sendPaymentNotice(deps.db, notice, deps.notifications, at);
    } catch (err) {
      deps.logger.error({ err, member: notice.member }, 'a payment notice failed');
    }
  }
}

/**
 * Records the money of a Stripe payment that succeeded, once (whoever reports it first: the
 * charge's answer, checkout.session.completed, payment_intent.succeeded): a completed payment
 * with method `stripe`, put on the invoice it paid (a top-up on the member's oldest open ones,
 * else their prepaid balance). Runs in the caller's transaction.
 */
export async function settleStripePayment(
  trx: Db,
  row: StripePaymentRow,
  paid: { amount: Amount; paymentIntent: string | null },
  at: Date,
  notices: Notices,
): Promise<PaymentRow | null> {
  const stamp = at.toISOString();
  if (!(await claimSettlement(trx, row.id, stamp))) return null;
  const member = await requiredRow(trx, 'members', row.member);
  const date = localTime(at, await spaceTimeZone(trx, member.space)).date;
  const invoice = row.invoice ? await requiredRow(trx, 'invoices', row.invoice) : null;
  const what = invoice ? `Invoice ${invoice.number}` : 'Prepaid balance top-up';
  const total = formatMoney(paid.amount);
  const done = async (payment: PaymentRow) => {
    await updateStripePayment(trx, row.id, {
      state: 'succeeded',
      payment: payment.id,
      paymentIntent: paid.paymentIntent ?? row.paymentIntent,
      failureCode: null,
      failureMessage: null,
      retryAfter: null,
      updatedAt: stamp,
    });
    notices.push({
      kind: 'received',
      account: row.account,
      member: row.member,
      invoice: row.invoice,
      payment: payment.id,
      amount: total,
      currency: row.currency,
    });
    return payment;
  };
  // A payment request's pending payment is completed (it settles the oldest open invoices);
  // were it completed by hand meanwhile, the money is recorded beside it (prepaid balance).
  if (row.payment !== null && (await completePendingPayment(trx, row.payment, { total, date, at: stamp }))) {
    await markRequestsPaid(trx, row.payment, stamp);
    const completed = (await requiredRow(trx, 'payments', row.payment)) as PaymentRow;
    await allocatePayment(trx, completed, null, stamp);
    return done(completed);
  }
  const payment = (await insertRow(
    trx,
    'payments',
    {
      account: row.account,
      member: row.member,
      date,
      total,
      state: 'completed',
      method: 'stripe',
      notes: `${what}, paid through Stripe${paid.paymentIntent ? ` (${paid.paymentIntent})` : ''}`,
    },
    { at: stamp, by: null },
  )) as PaymentRow;
  await allocatePayment(trx, payment, invoice ? [invoice.id] : null, stamp);
  return done(payment);
}

/** settleStripePayment of a PaymentIntent that succeeded: the amount it received. */
export function settleStripeIntent(
  trx: Db,
  row: StripePaymentRow,
  intent: Pick<Stripe.PaymentIntent, 'id' | 'amount' | 'amount_received'>,
  at: Date,
  notices: Notices,
): Promise<PaymentRow | null> {
  const amount = fromStripeAmount(intent.amount_received || intent.amount, row.currency);
  return settleStripePayment(trx, row, { amount, paymentIntent: intent.id }, at, notices);
}

/** Stripe's reason of a failed payment (decline code, else error code) and its message. */
export function failureOf(error: {
  code?: string | null;
  decline_code?: string | null;
  message?: string | null;
}): { code: string | null; message: string } {
  return {
    code: error.decline_code ?? error.code ?? null,
    message: error.message ?? 'The payment failed',
  };
}

/** Declines a retry cannot fix: the member must give another payment method. */
const finalDeclines = new Set([
  'authentication_required',
  'expired_card',
  'incorrect_number',
  'invalid_account',
  'lost_card',
  'stolen_card',
  'pickup_card',
  'restricted_card',
  'account_closed',
  'no_account',
  'bank_account_restricted',
  'debit_not_authorized',
  'revocation_of_authorization',
  'revocation_of_mandate',
  'resource_missing',
  'payment_method_not_available',
]);

/** Days after an attempt's failure until the next attempt: 3, 5, 7 days (4 attempts in 15 days). */
export const retryDays = [3, 5, 7];

/**
 * Records a failed Stripe payment with Stripe's reason; a charge is tried again after
 * `retryDays` (unless the decline is final or attempts are used up).
 */
export async function recordStripeFailure(
  trx: Db,
  row: StripePaymentRow,
  failure: { code: string | null; message: string; paymentIntent?: string | null },
  at: Date,
  notices: Notices,
): Promise<boolean> {
  const days = row.kind === 'charge' ? retryDays[row.attempt - 1] : undefined;
  const retry = days !== undefined && !finalDeclines.has(failure.code ?? '');
  const written = await updateStripePayment(
    trx,
    row.id,
    {
      state: 'failed',
      failureCode: failure.code,
      failureMessage: failure.message,
      paymentIntent: failure.paymentIntent ?? row.paymentIntent,
      retryAfter: retry ? new Date(at.getTime() + days * 86_400_000).toISOString() : null,
      updatedAt: at.toISOString(),
    },
    ['started', 'open', 'processing'],
  );
  if (written) {
    notices.push({
      kind: 'failed',
      account: row.account,
      member: row.member,
      invoice: row.invoice,
      amount: row.amount,
      currency: row.currency,
      failureCode: failure.code,
      failureMessage: failure.message,
      willRetry: retry,
    });
  }
  return written;
}

/**
 * A refund at Stripe (charge.refunded, `refunded` is what Stripe has refunded of it in all):
 * the Stripe payment's hub payment is lowered by what is newly refunded, and comes off its
 * invoice as far as it no longer covers it (the invoice reads unpaid again).
 */
export async function recordStripeRefund(
  trx: Db,
  row: StripePaymentRow,
  refunded: Amount,
  at: Date,
): Promise<void> {
  const before = parseMoney(row.refunded);
  if (refunded <= before || row.payment === null) return;
  const stamp = at.toISOString();
  const payment = await requiredRow(trx, 'payments', row.payment);
  const total = parseMoney(payment.total) - (refunded - before);
  await releasePayment(trx, payment.id, stamp);
  await writeRefundedPayment(trx, payment.id, {
    total: formatMoney(total < 0n ? 0n : total),
    notes: `${payment.notes ?? 'Paid through Stripe'}; ${formatMoney(refunded)} ${row.currency} refunded`,
    at: stamp,
  });
  await updateStripePayment(trx, row.id, { refunded: formatMoney(refunded), updatedAt: stamp });
  const after = await requiredRow(trx, 'payments', payment.id);
  await allocatePayment(trx, after as PaymentRow, row.invoice ? [row.invoice] : null, stamp);
}

// ---- saved payment methods ---------------------------------------------------------------

/**
 * Saves the payment method a setup session made as the member's payment method (a card, or a
 * SEPA direct debit mandate), replacing the one before; the billing run charges it.
 */
export async function saveStripeMethod(
  trx: Db,
  row: StripePaymentRow,
  setup: Stripe.SetupIntent,
  method: Stripe.PaymentMethod,
  at: Date,
): Promise<void> {
  const member = await requiredRow(trx, 'members', row.member);
  const date = localTime(at, await spaceTimeZone(trx, member.space)).date;
  const mandate = typeof setup.mandate === 'string' ? setup.mandate : (setup.mandate?.id ?? null);
  const sepa = method.type === 'sepa_debit';
  await writeStripePaymentMethod(
    trx,
    member,
    {
      type: sepa ? 'sepa' : 'card',
      accountOwnerName: method.billing_details?.name ?? null,
      cardBrand: sepa ? null : (method.card?.brand ?? null),
      cardLast4: sepa ? null : (method.card?.last4 ?? null),
      mandateReference: sepa ? mandate : null,
      mandateDate: sepa ? date : null,
      stripeCustomer: row.customer,
      stripePaymentMethod: method.id,
      stripeType: method.type,
      last4: (sepa ? method.sepa_debit?.last4 : method.card?.last4) ?? null,
    },
    { at: at.toISOString(), by: null },
  );
  await updateStripePayment(trx, row.id, {
    state: 'succeeded',
    paymentMethod: method.id,
    settledAt: at.toISOString(),
    updatedAt: at.toISOString(),
  });
}

/** What the member sees of their saved Stripe method: type, brand, last 4 digits. */
export async function savedMethodSummary(db: Db, memberId: number) {
  const saved = await stripePaymentMethodOf(db, memberId);
  if (!saved) return null;
  return {
    type: saved.type,
    brand: saved.cardBrand ?? null,
    last4: saved.last4 ?? null,
    mandateReference: saved.mandateReference ?? null,
    updatedAt: saved.updatedAt,
  };
}

/** The record of a Stripe payment as members and admins read it. */
export function stripePaymentRecord(row: StripePaymentRow) {
  return {
    id: row.id,
    member: row.member,
    invoice: row.invoice,
    kind: row.kind as 'checkout' | 'setup' | 'charge',
    attempt: row.attempt,
    state: row.state as 'started' | 'open' | 'processing' | 'succeeded' | 'failed' | 'expired',
    amount: row.amount,
    currency: row.currency,
    refunded: row.refunded,
    failureCode: row.failureCode,
    failureMessage: row.failureMessage,
    retryAfter: row.retryAfter,
    payment: row.payment,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

// ---- payment requests ------------------------------------------------------------------------

/**
 * The payment provider of payment requests (POST /payments/{id}/request-payment): where the
 * member's space takes payments online, a Stripe Checkout link for the pending payment (paid,
 * it completes that payment); elsewhere bank transfer instructions, as ManualTransferProvider.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  private readonly manual = new ManualTransferProvider();

  constructor(private readonly deps: StripeDeps) {}

  async request(input: Parameters<PaymentProvider['request']>[0]) {
    const member = await requiredRow(this.deps.db, 'members', input.member.id);
    if (!(await stripeAccountOf(this.deps, member.space))) {
      return { ...(await this.manual.request(input)), provider: this.manual.name };
    }
    const { url } = await startCheckout(this.deps, member.id, {
      kind: 'request',
      payment: input.payment.id,
      amount: parseMoney(input.total),
      reference: input.reference,
    });
    return {
      instructions: `Please pay ${input.total} ${input.currency} online: ${url} (reference ${input.reference}).`,
      provider: this.name,
    };
  }
}
