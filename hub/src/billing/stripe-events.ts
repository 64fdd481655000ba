import type Stripe from 'stripe';
import type { Db } from '../db/crud.js';
import { badRequest } from '../errors.js';
import {
  deliverNotices,
  failureOf,
  fromStripeAmount,
  type Notices,
  recordStripeFailure,
  recordStripeRefund,
  type StripeDeps,
  saveStripeMethod,
  settleStripeIntent,
  settleStripePayment,
  stripeAccountOf,
} from './stripe.js';
import {
  insertStripeEvent,
  spacesWithWebhookSecret,
  type StripePaymentRow,
  stripeEventSeen,
  stripePaymentBy,
  stripePaymentById,
  updateStripePayment,
} from './stripe.repository.js';

/**
 * `POST /stripe/webhook`: Stripe's events. The signature is checked with Stripe's own verifier
 * against the webhook secret of each space that has one (the one that matches tells the space);
 * each event id is handled once (`stripe_events`, written in the transaction of its changes).
 * Events of a type the hub does not use, or about payments it did not ask for, answer 200 and
 * change nothing.
 */

/** The events the hub acts on (docs/PAYMENTS.md lists what each does). */
export const handledEventTypes = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'payment_intent.succeeded',
  'payment_intent.processing',
  'payment_intent.payment_failed',
  'charge.refunded',
] as const;

/** Transactions that emit webhook events of the hub (invoice_updated) go through the event bus. */
export type Transact = <T>(fn: (trx: Db) => Promise<T>) => Promise<T>;

export async function receiveStripeEvent(
  deps: StripeDeps,
  transact: Transact,
  rawBody: Buffer | undefined,
  signature: string | undefined,
): Promise<{ received: true; duplicate?: true; ignored?: true }> {
  if (!rawBody || rawBody.length === 0) throw badRequest('The body is empty: expected a Stripe event');
  if (!signature) throw badRequest('The Stripe-Signature header is missing', { signature: 'missing' });
  let event: Stripe.Event | null = null;
  let account = 0;
  let space = 0;
  for (const candidate of await spacesWithWebhookSecret(deps.db)) {
    try {
      event = await deps.stripe.verify(rawBody, signature, deps.tokens.open(candidate.stripeWebhookSecret!));
      account = candidate.account;
      space = candidate.space;
      break;
    } catch {
      // Not this space's secret (or not signed by Stripe at all).
    }
  }
  if (!event) {
    throw badRequest('The Stripe signature does not match any webhook secret of this hub', {
      signature: 'invalid',
    });
  }
  if (!(handledEventTypes as readonly string[]).includes(event.type)) {
    return { received: true, ignored: true };
  }
  if (await stripeEventSeen(deps.db, event.id)) return { received: true, duplicate: true };
  // Anything read from Stripe is read before the transaction (no network call holds it open).
  const prepared = await prepare(deps, event, account, space);
  const notices: Notices = [];
  const at = deps.clock.now();
  const handled = await transact(async (trx) => {
    const fresh = await insertStripeEvent(trx, {
      eventId: event.id,
      account,
      type: event.type,
      receivedAt: at.toISOString(),
    });
    if (!fresh) return false;
    await apply(trx, event, prepared, at, notices);
    return true;
  });
  if (!handled) return { received: true, duplicate: true };
  await deliverNotices(deps, notices);
  return { received: true };
}

interface Prepared {
  row: StripePaymentRow | null;
  setup?: { intent: Stripe.SetupIntent; method: Stripe.PaymentMethod };
}

/** The hub's row of the event's object: by its metadata (the hub's reference), else by its id. */
async function rowOf(deps: StripeDeps, object: Record<string, any>, account: number) {
  const metadata = (object.metadata ?? {}) as Record<string, string>;
  let row: StripePaymentRow | undefined;
  if (metadata.hubPayment && /^\d+$/.test(metadata.hubPayment)) {
    row = await stripePaymentById(deps.db, Number(metadata.hubPayment));
    if (row && row.idempotencyKey !== metadata.hubReference) row = undefined;
  }
  if (!row && object.object === 'checkout.session')
    row = await stripePaymentBy(deps.db, 'checkoutSession', object.id);
  if (!row && object.object === 'payment_intent')
    row = await stripePaymentBy(deps.db, 'paymentIntent', object.id);
  if (!row && object.object === 'charge' && typeof object.payment_intent === 'string')
    row = await stripePaymentBy(deps.db, 'paymentIntent', object.payment_intent);
  // Another account's (or another hub's) payment is none of this event's business.
  return row && row.account === account ? row : null;
}

async function prepare(
  deps: StripeDeps,
  event: Stripe.Event,
  account: number,
  space: number,
): Promise<Prepared> {
  const object = event.data.object as unknown as Record<string, any>;
  const row = await rowOf(deps, object, account);
  if (event.type === 'checkout.session.completed' && row?.kind === 'setup' && object.setup_intent) {
    const stripeAccount = await stripeAccountOf(deps, space);
    if (!stripeAccount) return { row: null };
    const setupId = typeof object.setup_intent === 'string' ? object.setup_intent : object.setup_intent.id;
    const intent = await stripeAccount.client.setupIntents.retrieve(setupId, { expand: ['payment_method'] });
    const method =
      typeof intent.payment_method === 'string'
        ? await stripeAccount.client.paymentMethods.retrieve(intent.payment_method)
        : intent.payment_method;
    if (method) return { row, setup: { intent, method } };
  }
  return { row };
}

async function apply(trx: Db, event: Stripe.Event, prepared: Prepared, at: Date, notices: Notices) {
  const { row } = prepared;
  if (!row) return;
  const object = event.data.object as unknown as Record<string, any>;
  const paymentIntentOf = (o: Record<string, any>) =>
    typeof o.payment_intent === 'string' ? o.payment_intent : (o.payment_intent?.id ?? null);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (row.kind === 'setup') {
        if (prepared.setup)
          await saveStripeMethod(trx, row, prepared.setup.intent, prepared.setup.method, at);
        return;
      }
      const paymentIntent = paymentIntentOf(object);
      if (object.payment_status === 'paid' || object.payment_status === 'no_payment_required') {
        await settleStripePayment(
          trx,
          row,
          { amount: fromStripeAmount(object.amount_total ?? 0, row.currency), paymentIntent },
          at,
          notices,
        );
      } else {
        // A SEPA debit: paid once payment_intent.succeeded (or async_payment_succeeded) arrives.
        await updateStripePayment(
          trx,
          row.id,
          { state: 'processing', paymentIntent, updatedAt: at.toISOString() },
          ['started', 'open'],
        );
      }
      return;
    }
    case 'checkout.session.async_payment_failed':
      await recordStripeFailure(
        trx,
        row,
        { code: 'async_payment_failed', message: 'The debit failed', paymentIntent: paymentIntentOf(object) },
        at,
        notices,
      );
      return;
    case 'checkout.session.expired':
      await updateStripePayment(trx, row.id, { state: 'expired', updatedAt: at.toISOString() }, [
        'started',
        'open',
      ]);
      return;
    case 'payment_intent.succeeded':
      await settleStripeIntent(trx, row, object as Stripe.PaymentIntent, at, notices);
      return;
    case 'payment_intent.processing':
      await updateStripePayment(
        trx,
        row.id,
        { state: 'processing', paymentIntent: object.id, updatedAt: at.toISOString() },
        ['started', 'open'],
      );
      return;
    case 'payment_intent.payment_failed': {
      const failure = failureOf(object.last_payment_error ?? {});
      await recordStripeFailure(trx, row, { ...failure, paymentIntent: object.id }, at, notices);
      return;
    }
    case 'charge.refunded':
      await recordStripeRefund(trx, row, fromStripeAmount(object.amount_refunded ?? 0, row.currency), at);
      return;
  }
}
