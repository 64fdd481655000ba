import { cascadeTo, required, texts, withDefaults, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, linkTable } from './tables.js';

/**
 * Billing: packages with their credits and permissions, member packages and the credits members
 * hold, charges, invoices, payments (with their allocation to invoices and payment requests) and
 * the hub's background jobs. Money is decimal text (see hub/src/billing/money.ts).
 */
export const billing = migration(async (db, dialect) => {
  await withStamps(
    accountTable(db, 'packages', dialect)
      .addColumn('name', 'text', (c) => c.notNull())
      .$call(texts('description', 'notes'))
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('allowsBooking', 'integer', (c) => c.notNull().defaultTo(1))
      .$call(withDefaults('text', { setupFee: '0.00', recurringFee: '0.00', recurringFeePeriod: 'month' }))
      .addColumn('prorate', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('minimumDuration', 'integer')
      .addColumn('minimumDurationUnit', 'text')
      .addColumn('endsAutomatically', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cancellationTime', 'integer')
      .addColumn('cancellationTimeUnit', 'text')
      .addColumn('metadata', 'text'),
  ).execute();
  await index(db, 'packages', ['account', 'id']);

  await withStamps(
    accountTable(db, 'package_credits', dialect, { package: 'packages.id' }).$call(
      withDefaults('text', { scope: 'global', amount: '0.00', period: 'month', resources: '[]' }),
    ),
  ).execute();
  await index(db, 'package_credits', ['package']);

  await withStamps(
    accountTable(db, 'package_permissions', dialect, { package: 'packages.id' })
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('resourceType', 'integer')
      .addColumn('resource', 'integer')
      .$call(
        withDefaults('text', {
          timeType: 'always',
          times: '[]',
          usageFeeDiscountPercent: '0',
          bookingFeeDiscountPercent: '0',
        }),
      ),
  ).execute();
  await index(db, 'package_permissions', ['package']);

  await withStamps(
    accountTable(db, 'member_packages', dialect, { member: 'members.id' })
      .addColumn('package', 'integer', (c) => c.notNull().references('packages.id'))
      .$call(required('text', 'fromDate'))
      .$call(texts('untilDate', 'notes'))
      // Billing state: the setup fee was charged; recurring fees are charged up to (excluding) this date.
      .addColumn('setupCharged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('billedUntil', 'text'),
  ).execute();
  await index(db, 'member_packages', ['member']);
  await index(db, 'member_packages', ['account', 'id']);

  // A credit a member holds for one period of a package credit; `remaining` never goes below 0.
  await withStamps(
    accountTable(db, 'member_credits', dialect, { member: 'members.id' })
      .addColumn('memberPackage', 'integer', (c) =>
        c.notNull().references('member_packages.id').onDelete('cascade'),
      )
      .addColumn('packageCredit', 'integer', (c) =>
        c.notNull().references('package_credits.id').onDelete('cascade'),
      )
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('resources', 'text', (c) => c.notNull().defaultTo('[]'))
      .$call(required('text', 'amount', 'remaining', 'fromDate'))
      // Exclusive end of the credit's period; null: as long as the member package lasts.
      .addColumn('untilDate', 'text'),
  ).execute();
  await index(db, 'member_credits', ['member']);
  await index(db, 'member_credits', ['memberPackage', 'packageCredit', 'fromDate'], true);

  await withStamps(
    accountTable(db, 'charges', dialect, { member: 'members.id' })
      .$call(required('text', 'dateTime', 'description', 'price'))
      .addColumn('taxPercent', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('invoice', 'integer')
      .addColumn('booking', 'integer', (c) => c.unique())
      .addColumn('resourceLog', 'integer', (c) => c.unique())
      .addColumn('memberPackage', 'integer')
      // A recurring package fee: the member package and the period start it pays for, charged once.
      .addColumn('feeKey', 'text', (c) => c.unique())
      .addColumn('calculated', 'integer', (c) => c.notNull().defaultTo(0)),
  ).execute();
  await index(db, 'charges', ['account', 'id']);
  await index(db, 'charges', ['member', 'invoice']);
  await index(db, 'charges', ['invoice']);

  // Credit taken for a session or booking; its existence also makes billing a log only once.
  await accountTable(db, 'credit_uses', dialect, { member: 'members.id' })
    .addColumn('memberCredit', 'integer', (c) =>
      c.notNull().references('member_credits.id').onDelete('cascade'),
    )
    .addColumn('resourceLog', 'integer')
    .addColumn('booking', 'integer')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'credit_uses', ['resourceLog']);
  await index(db, 'credit_uses', ['booking']);

  await withStamps(
    accountTable(db, 'invoices', dialect)
      .addColumn('space', 'integer', (c) => c.notNull().references('spaces.id'))
      .addColumn('member', 'integer', cascadeTo('members.id'))
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('dueDate', 'text')
      .addColumn('number', 'text', (c) => c.notNull())
      // 'unpaid' | 'paid' | 'cancelled': kept up to date whenever payments or the invoice change.
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('unpaid'))
      .addColumn('currency', 'text', (c) => c.notNull().defaultTo('EUR'))
      .addColumn('total', 'text', (c) => c.notNull())
      .addColumn('paid', 'text', (c) => c.notNull().defaultTo('0.00'))
      .addColumn('cancelledInvoice', 'integer')
      .$call(texts('recipientName', 'recipientCompany', 'recipientAddress', 'header', 'footer', 'text'))
      .addColumn('notes', 'text'),
  ).execute();
  await index(db, 'invoices', ['account', 'id']);
  await index(db, 'invoices', ['member', 'id']);
  await index(db, 'invoices', ['space', 'number'], true);

  await withStamps(
    accountTable(db, 'payments', dialect, { member: 'members.id' })
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('total', 'text', (c) => c.notNull())
      // 'completed' (money received) | 'pending' (expected, e.g. after a payment request).
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('completed'))
      .addColumn('method', 'text', (c) => c.notNull().defaultTo('manual'))
      .addColumn('notes', 'text'),
  ).execute();
  await index(db, 'payments', ['account', 'id']);
  await index(db, 'payments', ['member', 'id']);

  await linkTable(db, 'payment_allocations', ['payment', 'payments.id'], ['invoice', 'invoices.id'], (t) =>
    t.addColumn('amount', 'text', (c) => c.notNull()),
  );

  await withStamps(
    accountTable(db, 'payment_requests', dialect, { payment: 'payments.id' })
      .addColumn('member', 'integer', (c) => c.notNull())
      .addColumn('total', 'text', (c) => c.notNull())
      .addColumn('notes', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('requested'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('reference', 'text', (c) => c.notNull().unique())
      .addColumn('instructions', 'text'),
  ).execute();

  await withStamps(
    accountTable(db, 'jobs', dialect)
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
      .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('runAfter', 'text', (c) => c.notNull())
      .addColumn('startedAt', 'text')
      .addColumn('finishedAt', 'text'),
  ).execute();
  await index(db, 'jobs', ['state', 'runAfter']);
  await index(db, 'jobs', ['account', 'type', 'createdAt']);
});
