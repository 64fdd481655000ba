import { bytesType, cascadeTo } from './columns.js';
import { migration } from './migration.js';

/**
 * Invoice PDFs. The billing settings get what an invoice prints about the space beside its
 * header and footer (`invoiceName`, `invoiceAddress`, `invoiceTaxId`) and the type of its logo;
 * the logo's bytes live in `invoice_logos` (one per space), so the settings row that billing
 * reads for every charge stays small. `invoice_pdfs` keeps each invoice's document as first
 * made: `content` (what it prints, as JSON, so a cancelled invoice still prints its lines),
 * `pdf` (the issued PDF's bytes) and `cancelledPdf` (the same marked cancelled).
 */
export const invoicePdfs = migration(async (db, dialect) => {
  const bytes = bytesType(dialect);
  for (const column of ['invoiceName', 'invoiceAddress', 'invoiceTaxId', 'invoiceLogoType'])
    await db.schema.alterTable('space_billing_settings').addColumn(column, 'text').execute();
  await db.schema
    .createTable('invoice_logos')
    .addColumn('space', 'integer', (c) => cascadeTo('spaces.id')(c).primaryKey())
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('contentType', 'text', (c) => c.notNull())
    .addColumn('bytes', bytes, (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('invoice_pdfs')
    .addColumn('invoice', 'integer', (c) => cascadeTo('invoices.id')(c).primaryKey())
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('pdf', bytes)
    .addColumn('cancelledPdf', bytes)
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
});
