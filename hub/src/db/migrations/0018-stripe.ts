import { cascadeTo, columns } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, withId } from './tables.js';

/**
 * Payments through Stripe (billing/stripe*.ts, docs/PAYMENTS.md):
 * - the space's Stripe secret key and webhook signing secret, sealed with the hub's key;
 * - `stripe_customers`: the Stripe customer of a member;
 * - `stripe_payments`: every payment asked of Stripe (a Checkout session, a charge of a saved
 *   payment method), written before Stripe is called, with its idempotency key, state, the
 *   failure Stripe gave and the hub payment it became;
 * - `stripe_events`: the ids of Stripe events already handled (each is handled once).
 */
export const stripe = migration(async (db, dialect) => {
  await db.schema.alterTable('space_billing_settings').addColumn('stripeSecretKey', 'text').execute();
  await db.schema.alterTable('space_billing_settings').addColumn('stripeWebhookSecret', 'text').execute();

  await accountTable(db, 'stripe_customers', dialect, { member: 'members.id' })
    .$call(
      columns({
        // Which Stripe account (a MAC of its secret key): a new key may be another account.
        keyTag: 'text not null',
        customer: 'text not null',
        createdAt: 'text not null',
      }),
    )
    .execute();
  await index(db, 'stripe_customers', ['member', 'keyTag'], true);

  await accountTable(db, 'stripe_payments', dialect, { member: 'members.id' })
    .addColumn('invoice', 'integer', (c) => c.references('invoices.id').onDelete('cascade'))
    // checkout (an invoice or a top-up paid on Stripe's page), setup (a payment method
    // saved), charge (a saved payment method charged by the billing run)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('idempotencyKey', 'text', (c) => c.notNull().unique())
    // A charge's invoice and attempt ("<invoice>:<attempt>"): one charge per attempt, whatever
    // hub process starts it.
    .addColumn('chargeSlot', 'text', (c) => c.unique())
    .$call(
      columns({
        customer: 'text',
        paymentMethod: 'text',
        amount: 'text not null',
        currency: 'text not null',
        // started (written, Stripe not answered yet), open, processing, succeeded, failed, expired
        state: 'text not null',
      }),
    )
    .addColumn('checkoutSession', 'text', (c) => c.unique())
    .addColumn('paymentIntent', 'text', (c) => c.unique())
    .$call(
      columns({
        failureCode: 'text',
        failureMessage: 'text',
        retryAfter: 'text',
      }),
    )
    .addColumn('payment', 'integer', (c) => c.references('payments.id').onDelete('set null'))
    .addColumn('settledAt', 'text')
    .addColumn('refunded', 'text', (c) => c.notNull().defaultTo('0.00'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'stripe_payments', ['invoice', 'attempt']);
  await index(db, 'stripe_payments', ['member', 'id']);
  await index(db, 'stripe_payments', ['state']);

  await withId(db.schema.createTable('stripe_events'), dialect)
    .addColumn('eventId', 'text', (c) => c.notNull().unique())
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('receivedAt', 'text', (c) => c.notNull())
    .execute();
});
