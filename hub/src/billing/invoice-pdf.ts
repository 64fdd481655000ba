import { type Clock, systemClock } from '../clock.js';
import type { Db } from '../db/crud.js';
import { requiredRow, rowById } from '../db/records.js';
import { notFound, unprocessable } from '../errors.js';
import { formatMoney, parseMoney } from '../kernel/money.js';
import { spaceById } from '../spaces/spaces.repository.js';
import { findInvoice, invoiceDetails, type InvoiceRow } from './invoices.js';
import type { Caller } from '../kernel/caller.js';
import { type InvoiceContent, type InvoiceLanguage, renderInvoicePdf } from './invoice-pdf-render.js';
import {
  insertInvoicePdf,
  invoiceLogoOf,
  storedInvoicePdf,
  writeInvoiceLogo,
  writeInvoicePdfBytes,
} from './invoice-pdf.repository.js';
import { billingSettingsFor } from './settings.js';
import { localTime } from './local-time.js';

/**
 * Invoice PDFs (docs/DECISIONS.md, "Invoice PDFs"). An invoice's document is made the first time
 * someone asks for it (the member or an admin downloads it, a mail attaches it) and stored:
 * what it prints (its content) and the PDF's bytes. Every later request answers the stored
 * bytes, so a reprint is byte for byte the first print. A cancelled invoice prints its stored
 * content marked cancelled, also stored once made.
 */

const LANGUAGES: readonly InvoiceLanguage[] = ['en', 'de'];

/**
 * The language of a member's invoices and the locale its dates and amounts are formatted in:
 * the member's language where invoices are offered in it (`de-AT` prints German, formatted for
 * Austria), else the space's, else English.
 */
export function invoiceLocale(
  memberLanguage: string | null,
  spaceLocale: string | null,
): { language: InvoiceLanguage; locale: string } {
  for (const tag of [memberLanguage, spaceLocale]) {
    if (!tag) continue;
    let canonical: string;
    try {
      [canonical] = Intl.getCanonicalLocales(tag.replace('_', '-'));
    } catch {
      continue;
    }
    const language = canonical?.split('-')[0] as InvoiceLanguage;
    if (LANGUAGES.includes(language)) return { language, locale: canonical };
  }
  return { language: 'en', locale: 'en' };
}

/** What an invoice prints, read from the invoice, its charges, its member and its space now. */
export async function invoiceContent(db: Db, invoice: InvoiceRow): Promise<InvoiceContent> {
  const member = await rowById(db, 'members', invoice.member);
  const space = await spaceById(db, invoice.space);
  const settings = await billingSettingsFor(db, invoice.space, { at: invoice.createdAt });
  const details = await invoiceDetails(db, invoice);
  const totalNet = parseMoney(details.totalExcludingTax);
  return {
    ...invoiceLocale(member?.language ?? null, space.locale),
    number: invoice.number,
    date: invoice.date,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    issuedAt: invoice.createdAt,
    sender: {
      name: settings.invoiceName ?? space.name,
      address: settings.invoiceAddress,
      taxId: settings.invoiceTaxId,
    },
    recipient: {
      name: invoice.recipientName,
      company: invoice.recipientCompany,
      address: invoice.recipientAddress,
    },
    header: invoice.header,
    text: invoice.text,
    footer: invoice.footer,
    lines: details.charges.map((c) => ({
      date: localTime(new Date(c.dateTime), space.timezone).date,
      description: c.description ?? '',
      taxPercent: c.taxPercent,
      net: c.netPrice,
      total: c.price,
    })),
    taxes: details.taxCategories,
    totalNet: formatMoney(totalNet),
    total: invoice.total,
  };
}

/**
 * Keeps what an invoice prints before its charges leave it: the cancel route calls this in the
 * transaction that cancels, so a cancelled invoice that was never printed still prints its lines.
 */
export async function keepInvoiceContent(
  trx: Db,
  caller: Caller,
  invoiceId: number,
  at: string,
): Promise<void> {
  const invoice = await findInvoice(trx, caller, invoiceId);
  if (invoice.state === 'cancelled' || (await storedInvoicePdf(trx, invoice.id))) return;
  const content = await invoiceContent(trx, invoice);
  await insertInvoicePdf(
    trx,
    {
      invoice: invoice.id,
      account: invoice.account,
      content: JSON.stringify(content),
      pdf: null,
      cancelledPdf: null,
    },
    at,
  );
}

/**
 * The PDF of an invoice, as stored the first time it was made (made and stored now otherwise).
 * A cancelled invoice answers its PDF marked cancelled. Callers check who may see the invoice.
 */
export async function invoicePdf(
  db: Db,
  invoiceId: number,
  options: { clock?: Clock } = {},
): Promise<Buffer> {
  const invoice = await rowById(db, 'invoices', invoiceId);
  if (!invoice) throw notFound('Invoice');
  const column = invoice.state === 'cancelled' ? 'cancelledPdf' : 'pdf';
  const stored = await storedInvoicePdf(db, invoiceId);
  const bytes = stored?.[column];
  if (bytes) return Buffer.from(bytes);
  const content: InvoiceContent = stored ? JSON.parse(stored.content) : await invoiceContent(db, invoice);
  const logo = await invoiceLogoOf(db, invoice.space);
  const pdf = await renderInvoicePdf(content, {
    logo: logo ? Buffer.from(logo.bytes) : null,
    cancelled: column === 'cancelledPdf',
  });
  const at = (options.clock ?? systemClock).now().toISOString();
  if (stored) await writeInvoicePdfBytes(db, invoiceId, column, pdf, at);
  else
    await insertInvoicePdf(
      db,
      {
        invoice: invoiceId,
        account: invoice.account,
        content: JSON.stringify(content),
        pdf: column === 'pdf' ? pdf : null,
        cancelledPdf: column === 'cancelledPdf' ? pdf : null,
      },
      at,
    );
  // Two first requests at once: both answer the bytes stored first.
  const kept = (await storedInvoicePdf(db, invoiceId))?.[column];
  return kept ? Buffer.from(kept) : pdf;
}

/** The file name of an invoice's PDF: `invoice-2026-0012.pdf` for invoice number 2026-0012. */
export function invoicePdfFileName(number: string): string {
  const safe = number.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return `invoice-${safe || 'unnumbered'}.pdf`;
}

// ---- the logo -----------------------------------------------------------------------------------

/** The largest logo a space may upload. */
export const LOGO_MAX_BYTES = 512 * 1024;

/** The most pixels a logo may have on either side (a logo prints at most 180 x 70 points). */
export const LOGO_MAX_PIXELS = 4000;

/** Width and height from a PNG's IHDR or a JPEG's frame header; undefined when not found. */
function imageSize(
  bytes: Buffer,
  type: 'image/png' | 'image/jpeg',
): { width: number; height: number } | undefined {
  if (type === 'image/png') {
    if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  // JPEG: walk the segments to the first start-of-frame (SOF0-SOF15 but DHT, JPG and DAC).
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Checks an uploaded logo: PNG or JPEG by its bytes (whatever the request's content type said),
 * at most LOGO_MAX_BYTES, and an image the PDF can embed (it is drawn into a throwaway PDF).
 * Anything else is a 422 naming what is wrong. Returns its content type.
 */
export async function checkInvoiceLogo(bytes: Buffer): Promise<'image/png' | 'image/jpeg'> {
  const refuse = (message: string, reason: string) => unprocessable(message, { logo: reason });
  if (bytes.length === 0) throw refuse('The logo is empty: send the image’s bytes as the body', 'empty');
  if (bytes.length > LOGO_MAX_BYTES)
    throw refuse(
      `The logo is ${Math.ceil(bytes.length / 1024)} KB; at most ${LOGO_MAX_BYTES / 1024} KB are allowed`,
      'tooLarge',
    );
  const type = bytes.subarray(0, 8).equals(PNG_SIGNATURE)
    ? 'image/png'
    : bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff
      ? 'image/jpeg'
      : undefined;
  if (!type) throw refuse('The logo must be a PNG or JPEG image', 'notAnImage');
  // Before anything decodes it: a few hundred KB of PNG can inflate to gigabytes of pixels.
  const size = imageSize(bytes, type);
  if (!size)
    throw refuse(`The logo is not a readable ${type === 'image/png' ? 'PNG' : 'JPEG'} image`, 'unreadable');
  if (size.width > LOGO_MAX_PIXELS || size.height > LOGO_MAX_PIXELS)
    throw refuse(
      `The logo is ${size.width} x ${size.height} pixels; at most ${LOGO_MAX_PIXELS} on either side are allowed`,
      'tooManyPixels',
    );
  try {
    await renderInvoicePdf(sampleContent, { logo: bytes });
  } catch (err) {
    throw refuse(
      `The logo is not a readable ${type === 'image/png' ? 'PNG' : 'JPEG'} image: ${(err as Error).message}`,
      'unreadable',
    );
  }
  return type;
}

const sampleContent: InvoiceContent = {
  language: 'en',
  locale: 'en',
  number: '1',
  date: '2026-01-01',
  dueDate: null,
  currency: 'EUR',
  issuedAt: '2026-01-01T00:00:00.000Z',
  sender: { name: 'Logo check', address: null, taxId: null },
  recipient: { name: null, company: null, address: null },
  header: null,
  text: null,
  footer: null,
  lines: [],
  taxes: [],
  totalNet: '0.00',
  total: '0.00',
};

/** Stores a space's invoice logo, checked by checkInvoiceLogo (in the transaction of the change). */
export async function storeInvoiceLogo(
  trx: Db,
  settingsId: number,
  logo: { contentType: string; bytes: Buffer },
  stamp: { at: string; by: number | null },
): Promise<void> {
  const settings = await requiredRow(trx, 'space_billing_settings', settingsId);
  await writeInvoiceLogo(trx, settings, logo, stamp);
}

/** Removes a space's invoice logo: invoices printed from now on have none. */
export async function removeInvoiceLogo(
  db: Db,
  settingsId: number,
  stamp: { at: string; by: number | null },
) {
  const settings = await requiredRow(db, 'space_billing_settings', settingsId);
  // No logo: nothing changes (the settings keep their lockVersion).
  if (settings.invoiceLogoType === null) return;
  await writeInvoiceLogo(db, settings, null, stamp);
}

export { invoiceLogoOf };
