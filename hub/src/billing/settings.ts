import type { Db } from '../db/crud.js';
import { spaceAccount } from '../spaces/spaces.repository.js';
import { billingSettingsRow, insertDefaultBillingSettings } from './settings.repository.js';

/** The billing settings of a space that billing reads (space_billing_settings, migration 0003). */
export interface BillingSettings {
  id: number;
  space: number;
  account: number;
  currency: string;
  taxPercent: string;
  invoiceNumberPrefix: string;
  nextInvoiceNumber: number;
  invoiceHeader: string | null;
  invoiceFooter: string | null;
  defaultInvoiceDeadline: number;
  defaultInvoiceDeadlineUnit: string;
  /** What invoices print about the space (invoice-pdf.ts). */
  invoiceName: string | null;
  invoiceAddress: string | null;
  invoiceTaxId: string | null;
  invoiceLogoType: string | null;
}

/**
 * The space's billing settings row. Spaces get one when they are made; a space that somehow has
 * none gets the defaults now. `forUpdate` locks the row until the transaction ends (PostgreSQL;
 * SQLite runs one write transaction at a time anyway): invoice numbers are taken under this lock.
 * `at` stamps a row made now (the hub's clock).
 */
export async function billingSettingsFor(
  db: Db,
  spaceId: number,
  options: { forUpdate?: boolean; at: string },
): Promise<BillingSettings> {
  const read = async () =>
    (await billingSettingsRow(db, spaceId, options.forUpdate === true)) as BillingSettings | undefined;
  const row = await read();
  if (row) return row;
  const space = await spaceAccount(db, spaceId);
  if (!space) throw new Error(`Space ${spaceId} does not exist`);
  await insertDefaultBillingSettings(db, space, options.at);
  return (await read()) as BillingSettings;
}
