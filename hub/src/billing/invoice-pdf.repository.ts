import { sql } from 'kysely';
import { type Db, deleteWhere, firstWhere, updateWhere } from '../db/crud.js';

/**
 * The `invoice_pdfs` (an invoice's document as first made) and `invoice_logos` (a space's logo
 * for its invoices) tables, and the logo's type on the space's billing settings. Functions take
 * the database (or the transaction of the change) first.
 */

/** The stored document of an invoice, if it has been made. */
export function storedInvoicePdf(db: Db, invoiceId: number) {
  return firstWhere(db, 'invoice_pdfs', { invoice: invoiceId });
}

/** Stores an invoice's document, unless one is stored already (then the first one stays). */
export async function insertInvoicePdf(
  db: Db,
  row: { invoice: number; account: number; content: string; pdf: Buffer | null; cancelledPdf: Buffer | null },
  at: string,
): Promise<void> {
  await db
    .insertInto('invoice_pdfs')
    .values({ ...row, createdAt: at, updatedAt: at })
    .onConflict((oc) => oc.column('invoice').doNothing())
    .execute();
}

/** Stores the issued (`pdf`) or the cancelled PDF of a stored document, unless it has one already. */
export async function writeInvoicePdfBytes(
  db: Db,
  invoiceId: number,
  column: 'pdf' | 'cancelledPdf',
  bytes: Buffer,
  at: string,
): Promise<void> {
  await updateWhere(
    db,
    'invoice_pdfs',
    { invoice: invoiceId, [column]: null },
    { [column]: bytes, updatedAt: at },
  );
}

/** The invoice logo of a space, if it has one. */
export function invoiceLogoOf(db: Db, spaceId: number) {
  return firstWhere(db, 'invoice_logos', { space: spaceId }, ['contentType', 'bytes']);
}

/**
 * Sets (or with `logo` null removes) a space's invoice logo and names its type on the billing
 * settings, which count their lockVersion on.
 */
export async function writeInvoiceLogo(
  trx: Db,
  settings: { id: number; space: number; account: number },
  logo: { contentType: string; bytes: Buffer } | null,
  stamp: { at: string; by: number | null },
): Promise<void> {
  await deleteWhere(trx, 'invoice_logos', { space: settings.space });
  if (logo)
    await trx
      .insertInto('invoice_logos')
      .values({ space: settings.space, account: settings.account, ...logo, createdAt: stamp.at })
      .execute();
  await updateWhere(
    trx,
    'space_billing_settings',
    { id: settings.id },
    {
      invoiceLogoType: logo?.contentType ?? null,
      lockVersion: sql`"lockVersion" + 1`,
      updatedAt: stamp.at,
      updatedBy: stamp.by,
    },
  );
}
