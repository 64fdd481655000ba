import { sql } from 'kysely';
import { columns, texts, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/**
 * SEPA direct debit batches (docs/PAYMENTS.md, "SEPA direct debit files"): a batch of a space's open invoices that
 * becomes one pain.008 file for the space's bank, its debits one per invoice (with the mandate
 * and account as sent), and the creditor's BIC beside the other SEPA billing settings.
 */
export const sepaBatches = migration(async (db, dialect) => {
  await db.schema.alterTable('space_billing_settings').addColumn('sepaBic', 'text').execute();

  await withStamps(
    accountTable(db, 'sepa_batches', dialect, { space: 'spaces.id' })
      .addColumn('collectionDate', 'text', (c) => c.notNull())
      .addColumn('messageId', 'text', (c) => c.notNull().unique())
      // created (file made, invoices in collection) or collected
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('created'))
      .addColumn('total', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      // The creditor as written into the file (name, IBAN, BIC, creditor id): JSON.
      .addColumn('creditor', 'text', (c) => c.notNull())
      // Invoices left out and why: JSON [{invoice, invoiceNumber, member, reason, message}].
      .addColumn('skipped', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('collectedDate', 'text'),
  ).execute();
  await index(db, 'sepa_batches', ['space']);

  await accountTable(db, 'sepa_debits', dialect, {
    batch: 'sepa_batches.id',
    invoice: 'invoices.id',
    member: 'members.id',
  })
    .$call(
      columns({
        amount: 'text not null',
        sequenceType: 'text not null',
        endToEndId: 'text not null',
        mandateReference: 'text not null',
        mandateDate: 'text not null',
        iban: 'text not null',
        debtorName: 'text not null',
        remittance: 'text not null',
      }),
    )
    // inCollection, collected or returned
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('inCollection'))
    .$call(texts('bic', 'returnReason', 'returnNotes', 'returnedDate'))
    .addColumn('payment', 'integer', (c) => c.references('payments.id').onDelete('set null'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'sepa_debits', ['batch']);
  await index(db, 'sepa_debits', ['member', 'mandateReference']);
  // An invoice is in at most one collection at a time.
  await sql`create unique index sepa_debits_in_collection_idx on sepa_debits ("invoice") where "state" = 'inCollection'`.execute(
    db,
  );
  await index(db, 'sepa_debits', ['invoice']);
});
