import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findInvoice } from '../billing/invoices.js';
import {
  savedMethodSummary,
  startCheckout,
  type StripeDeps,
  type StripeGateway,
  stripeAccountOf,
  stripePaymentRecord,
} from '../billing/stripe.js';
import { receiveStripeEvent } from '../billing/stripe-events.js';
import { stripePaymentMethodOf } from '../billing/payment-details.js';
import { stripePaymentsOfInvoice } from '../billing/stripe.repository.js';
import { unprocessable } from '../errors.js';
import { MemberParams, pathId } from '../http/params.js';
import { memberRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { noContentRoute } from '../http/route-kinds.js';
import { onMember } from './on-member.js';
import { parseMoney } from '../kernel/money.js';
import { changePaymentPart } from './member-payments.routes.js';

const CheckoutAnswer = z.object({
  id: z.string().describe('The Checkout session'),
  url: z.string().describe('Stripe’s payment page: send the member there'),
});
const TopUpBody = z.strictObject({
  amount: z
    .string()
    .regex(/^\d{1,7}(\.\d{1,2})?$/, 'expected an amount such as "20.00"')
    .describe('What to add to the prepaid balance, in the space’s currency (1.00 to 10000.00)'),
});
const InvoiceParams = z.object({ invoiceId: pathId });
const StripePaymentRecord = z.object({
  id: z.number().int(),
  member: z.number().int(),
  invoice: z.number().int().nullable(),
  kind: z.enum(['checkout', 'setup', 'charge']),
  attempt: z.number().int(),
  state: z.enum(['started', 'open', 'processing', 'succeeded', 'failed', 'expired']),
  amount: z.string(),
  currency: z.string(),
  refunded: z.string(),
  failureCode: z
    .string()
    .nullable()
    .describe('Stripe’s decline code (e.g. insufficient_funds) or error code'),
  failureMessage: z.string().nullable(),
  retryAfter: z.string().nullable().describe('When the billing run charges again; null: it does not'),
  payment: z.number().int().nullable().describe('The payment recorded when it succeeded'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const OnlinePayments = z.object({
  member: z.number().int(),
  enabled: z.boolean().describe('Whether the member’s space takes payments through Stripe'),
  publishableKey: z.string().nullable(),
  currency: z.string(),
  paymentMethod: z
    .object({
      type: z.enum(['card', 'sepa']),
      brand: z.string().nullable(),
      last4: z.string().nullable(),
      mandateReference: z.string().nullable(),
      updatedAt: z.string(),
    })
    .nullable()
    .describe('The payment method saved at Stripe, charged by the billing run'),
});

const notConfigured = 'Online payment is not set up for the member’s space (`data.stripeNotConfigured`).';
const refused = 'Stripe refused or could not be reached; the message gives Stripe’s reason.';

/**
 * Payments through Stripe (billing/stripe*.ts, docs/PAYMENTS.md): Checkout for an invoice, a
 * top-up or a saved payment method, the saved method, an invoice's Stripe payments, and
 * Stripe's webhook. Members act for themselves, admins for anyone of their account.
 */
export function stripeRoutes(ctx: HubServices, gateway: StripeGateway): FastifyPluginAsyncZod {
  const deps: StripeDeps = {
    db: ctx.db,
    clock: ctx.clock,
    tokens: ctx.tokens,
    logger: ctx.logger,
    stripe: gateway,
    linkBase: ctx.linkBase,
    notifications: ctx.notifications,
  };
  return async (app) => {
    memberRoute(
      app,
      'post',
      '/invoices/:invoiceId/checkout',
      {
        tags: ['invoices'],
        summary: 'Pay an invoice online',
        description:
          'Opens a Stripe Checkout session for what is left to pay of the invoice (card, or SEPA direct debit in euros) and answers its `url`: send the member there. Stripe’s webhook records the payment. A member pays their own invoices; admins open it for any member.',
        errors: {
          409: `The invoice is paid or cancelled, a debit of it is under way (\`data.paymentUnderWay\`), or ${notConfigured.toLowerCase()}`,
          502: refused,
        },
        params: InvoiceParams,
        response: { 200: CheckoutAnswer },
      },
      async (request, caller) => {
        const invoice = await findInvoice(ctx.db, caller, request.params.invoiceId);
        return startCheckout(deps, invoice.member, { kind: 'invoice', invoice });
      },
    );

    memberRoute(
      app,
      'post',
      '/members/:memberId/balance/checkout',
      {
        tags: ['members'],
        summary: 'Top up a prepaid balance online',
        description:
          'Opens a Stripe Checkout session for `amount` and answers its `url`. When Stripe reports it paid, a payment (method `stripe`) is recorded: it settles the member’s open invoices, oldest first, and the rest is prepaid balance. The member tops up their own balance; admins open it for any member.',
        errors: {
          409: notConfigured,
          422: '`amount` is below 1.00 or above 10000.00.',
          502: refused,
        },
        example: { amount: '20.00' },
        params: MemberParams,
        body: TopUpBody,
        response: { 200: CheckoutAnswer },
      },
      onMember(ctx.db, (member, request) => {
        const amount = parseMoney(request.body.amount);
        if (amount < parseMoney('1.00') || amount > parseMoney('10000.00')) {
          throw unprocessable('amount must be between 1.00 and 10000.00', { amount: 'outOfRange' });
        }
        return startCheckout(deps, member.id, { kind: 'topUp', amount });
      }),
    );

    memberRoute(
      app,
      'post',
      '/members/:memberId/payment-method/checkout',
      {
        tags: ['members'],
        summary: 'Save a card or SEPA mandate online',
        description:
          'Opens a Stripe Checkout session in setup mode and answers its `url`: the member enters a card, or an IBAN and accepts the SEPA direct debit mandate (euros only). When Stripe reports it done, it becomes the member’s payment method (replacing the one before), and the billing run charges their invoices to it.',
        errors: { 409: notConfigured, 502: refused },
        params: MemberParams,
        response: { 200: CheckoutAnswer },
      },
      onMember(ctx.db, (member) => startCheckout(deps, member.id, { kind: 'setup' })),
    );

    memberRoute(
      app,
      'get',
      '/members/:memberId/online-payments',
      {
        tags: ['members'],
        summary: 'Whether a member can pay online',
        description:
          'Whether the member’s space takes payments through Stripe (`enabled`; the web app shows Pay now, Top up and the saved payment method only then), its publishable key and currency, and the payment method saved at Stripe.',
        params: MemberParams,
        response: { 200: OnlinePayments },
      },
      onMember(ctx.db, async (member) => {
        const account = await stripeAccountOf(deps, member.space);
        return {
          member: member.id,
          enabled: account !== null,
          publishableKey: account?.publicKey ?? null,
          currency: account?.currency ?? 'EUR',
          paymentMethod: account ? ((await savedMethodSummary(ctx.db, member.id)) as any) : null,
        };
      }),
    );

    noContentRoute(
      app,
      'delete',
      '/members/:memberId/payment-method/stripe',
      {
        tags: ['members'],
        summary: 'Remove a payment method saved at Stripe',
        description:
          'Detaches the card or mandate from the member at Stripe and removes it as their payment method: the billing run charges it no more. The member removes their own; admins anyone’s. Answers 204 (also when none was saved).',
        params: MemberParams,
      },
      onMember(ctx.db, async (member, _request, caller) => {
        const saved = await stripePaymentMethodOf(ctx.db, member.id);
        if (saved) {
          const account = await stripeAccountOf(deps, member.space);
          try {
            await account?.client.paymentMethods.detach(saved.stripePaymentMethod);
          } catch (err) {
            // Detached already, or the key changed: the hub forgets it all the same.
            ctx.logger.warn({ err: (err as Error).message, member: member.id }, 'detaching at Stripe failed');
          }
          await changePaymentPart(ctx, caller, member, 'paymentMethod', null);
        }
      }),
    );

    memberRoute(
      app,
      'get',
      '/invoices/:invoiceId/stripe-payments',
      {
        tags: ['invoices'],
        summary: 'An invoice’s payments through Stripe',
        description:
          'Every Checkout session and charge of the invoice at Stripe, oldest first: its state, and for a failed one Stripe’s reason (`failureCode`, `failureMessage`) and when the billing run tries again (`retryAfter`). Members read their own invoices’.',
        params: InvoiceParams,
        response: { 200: z.array(StripePaymentRecord) },
      },
      async (request, caller) => {
        const invoice = await findInvoice(ctx.db, caller, request.params.invoiceId);
        return (await stripePaymentsOfInvoice(ctx.db, invoice.id)).map(stripePaymentRecord);
      },
    );

    // Stripe signs the exact bytes it sent: this route alone takes the body unparsed.
    await app.register(async (hook) => {
      hook.removeAllContentTypeParsers();
      hook.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      hook.post(
        '/stripe/webhook',
        {
          config: { public: true },
          schema: {
            tags: ['payments'],
            summary: 'Receive Stripe’s events',
            description:
              'The endpoint to give Stripe (Dashboard, Developers, Webhooks). Authenticated by the `Stripe-Signature` header, checked with the webhook signing secret of the space’s billing settings. Records paid invoices and top-ups, failed and refunded payments, and saved payment methods (docs/PAYMENTS.md lists the events). An event is handled once, however often Stripe sends it; events of other types answer 200 and change nothing.',
            security: [],
            errors: { 400: 'The body is empty or the signature does not match (nothing changes).' },
            response: { 200: z.object({ received: z.literal(true) }).passthrough() },
          },
        },
        async (request) =>
          receiveStripeEvent(
            deps,
            (fn) => ctx.events.transaction(fn),
            request.body as Buffer | undefined,
            request.headers['stripe-signature'] as string | undefined,
          ),
      );
    });
  };
}
