import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PDFKit from 'pdfkit';

const require = createRequire(import.meta.url);
// pdfkit (and its font engine) load with the first PDF.
const PDFDocument = () => require('pdfkit') as typeof PDFKit;

/** The languages invoices are printed in; a member's other languages get the space's, else English. */
export type InvoiceLanguage = 'en' | 'de';

/**
 * Everything an invoice's PDF prints, made once from the invoice (invoice-pdf.ts) and stored
 * beside its bytes: a cancelled invoice prints the same lines after its charges were released.
 * Amounts are the API's decimal texts; dates `YYYY-MM-DD` in the space's time zone.
 */
export interface InvoiceContent {
  language: InvoiceLanguage;
  /** The BCP 47 tag that dates and amounts are formatted in (`de-AT`, `en`). */
  locale: string;
  number: string;
  date: string;
  dueDate: string | null;
  currency: string;
  /** The issue time (ISO): the PDF's creation date, so the same content makes the same bytes. */
  issuedAt: string;
  sender: { name: string; address: string | null; taxId: string | null };
  recipient: { name: string | null; company: string | null; address: string | null };
  header: string | null;
  text: string | null;
  footer: string | null;
  lines: { date: string; description: string; taxPercent: string; net: string; total: string }[];
  taxes: { taxPercent: string; net: string; tax: string; total: string }[];
  totalNet: string;
  total: string;
}

const labels = {
  en: {
    invoice: 'Invoice',
    number: 'Invoice number',
    date: 'Invoice date',
    dueDate: 'Due date',
    taxId: 'Tax ID',
    lineDate: 'Date',
    description: 'Description',
    tax: 'Tax',
    net: 'Net',
    amount: 'Amount',
    totalNet: 'Total excluding tax',
    taxOf: (rate: string) => `Tax ${rate}`,
    total: 'Total',
    cancelled: 'Cancelled',
    cancelledNote: 'This invoice has been cancelled and is not to be paid.',
    page: (n: number, of: number) => `Page ${n} of ${of}`,
  },
  de: {
    invoice: 'Rechnung',
    number: 'Rechnungsnummer',
    date: 'Rechnungsdatum',
    dueDate: 'Fällig am',
    taxId: 'USt-IdNr.',
    lineDate: 'Datum',
    description: 'Beschreibung',
    tax: 'USt.',
    net: 'Netto',
    amount: 'Betrag',
    totalNet: 'Summe netto',
    taxOf: (rate: string) => `USt. ${rate}`,
    total: 'Gesamtbetrag',
    cancelled: 'Storniert',
    cancelledNote: 'Diese Rechnung wurde storniert und ist nicht zu bezahlen.',
    page: (n: number, of: number) => `Seite ${n} von ${of}`,
  },
} satisfies Record<InvoiceLanguage, unknown>;

/** The words of an invoice in its language (tests read them from the PDF's text). */
export const invoiceLabels = (language: InvoiceLanguage) => labels[language];

let fontBytes: { regular: Buffer; bold: Buffer } | undefined;
function fonts() {
  // DejaVu Sans ships with the hub (the stickers use it too): every script's letters print, on
  // a server without fonts. Only the glyphs used are embedded.
  fontBytes ??= {
    regular: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  };
  return fontBytes;
}

/** Formats dates, amounts and rates in the invoice's locale. */
function formats(content: InvoiceContent) {
  const money = new Intl.NumberFormat(content.locale, { style: 'currency', currency: content.currency });
  const percent = new Intl.NumberFormat(content.locale, { maximumFractionDigits: 2 });
  const date = new Intl.DateTimeFormat(content.locale, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    // Exact decimals: Intl takes the text as it is (no binary floating point on the way).
    money: (amount: string) => money.format(amount as Intl.StringNumericLiteral),
    percent: (rate: string) => `${percent.format(rate as Intl.StringNumericLiteral)} %`,
    date: (day: string) => date.format(new Date(`${day}T00:00:00Z`)),
  };
}

export interface RenderOptions {
  logo?: Buffer | null;
  cancelled?: boolean;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const INK = '#111111';
const GREY = '#555555';
const RED = '#b00020';

/**
 * The PDF of an invoice (A4): the space's logo, name, address and tax id; the recipient; the
 * invoice's number and dates; the header text; its lines with date, description, tax rate, net
 * and amount; the totals per tax rate and the total; the text and footer. The same content and
 * options give the same bytes.
 */
export async function renderInvoicePdf(
  content: InvoiceContent,
  options: RenderOptions = {},
): Promise<Buffer> {
  const words = labels[content.language];
  const f = formats(content);
  const title = options.cancelled
    ? `${words.invoice} ${content.number} (${words.cancelled})`
    : `${words.invoice} ${content.number}`;
  const doc = new (PDFDocument())({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    lang: content.locale,
    info: {
      Title: title,
      Author: content.sender.name,
      Creator: 'makerspace-hub',
      Producer: 'makerspace-hub',
      CreationDate: new Date(content.issuedAt),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const { regular, bold } = fonts();
  doc.registerFont('Sans', regular);
  doc.registerFont('Sans-Bold', bold);
  const width = A4.width - 2 * MARGIN;
  const right = A4.width - MARGIN;
  const bottom = A4.height - MARGIN - 40; // room for the page number

  // The sender, top right; the logo top left.
  let top = MARGIN;
  if (options.logo) doc.image(options.logo, MARGIN, top, { fit: [180, 70] });
  doc.font('Sans-Bold').fontSize(12).fillColor(INK);
  doc.text(content.sender.name, MARGIN + 200, top, { width: width - 200, align: 'right' });
  doc.font('Sans').fontSize(9).fillColor(GREY);
  if (content.sender.address) doc.text(content.sender.address, { width: width - 200, align: 'right' });
  if (content.sender.taxId)
    doc.text(`${words.taxId}: ${content.sender.taxId}`, { width: width - 200, align: 'right' });
  top = Math.max(doc.y, MARGIN + (options.logo ? 80 : 0)) + 30;

  // The recipient, left; the invoice's facts, right.
  doc.font('Sans').fontSize(10).fillColor(INK);
  const recipient = [content.recipient.company, content.recipient.name, content.recipient.address]
    .filter((l): l is string => Boolean(l))
    .join('\n');
  doc.text(recipient || ' ', MARGIN, top, { width: width / 2 });
  const afterRecipient = doc.y;
  const facts: [string, string][] = [
    [words.number, content.number],
    [words.date, f.date(content.date)],
  ];
  if (content.dueDate && !options.cancelled) facts.push([words.dueDate, f.date(content.dueDate)]);
  let y = top;
  for (const [label, value] of facts) {
    doc
      .font('Sans')
      .fontSize(9)
      .fillColor(GREY)
      .text(label, MARGIN + width / 2, y, { width: width / 4 });
    doc
      .font('Sans')
      .fontSize(10)
      .fillColor(INK)
      .text(value, MARGIN + (3 * width) / 4, y, { width: width / 4, align: 'right' });
    y = doc.y + 2;
  }
  y = Math.max(afterRecipient, y) + 30;

  doc
    .font('Sans-Bold')
    .fontSize(20)
    .fillColor(options.cancelled ? RED : INK);
  doc.text(options.cancelled ? `${words.invoice} (${words.cancelled})` : words.invoice, MARGIN, y, { width });
  if (options.cancelled) doc.font('Sans').fontSize(10).fillColor(RED).text(words.cancelledNote, { width });
  doc.fillColor(INK);
  if (content.header) doc.moveDown(0.5).font('Sans').fontSize(10).text(content.header, { width });
  y = doc.y + 16;

  // The lines.
  const columns = [
    { label: words.lineDate, x: MARGIN, w: 70, align: 'left' as const },
    { label: words.description, x: MARGIN + 75, w: width - 75 - 230, align: 'left' as const },
    { label: words.tax, x: right - 225, w: 55, align: 'right' as const },
    { label: words.net, x: right - 165, w: 80, align: 'right' as const },
    { label: words.amount, x: right - 80, w: 80, align: 'right' as const },
  ];
  const headerRow = () => {
    doc.font('Sans-Bold').fontSize(9).fillColor(INK);
    for (const c of columns) doc.text(c.label, c.x, y, { width: c.w, align: c.align });
    y += 14;
    doc.moveTo(MARGIN, y).lineTo(right, y).lineWidth(0.5).strokeColor(INK).stroke();
    y += 5;
  };
  headerRow();
  doc.font('Sans').fontSize(9);
  for (const line of content.lines) {
    const height = doc.heightOfString(line.description, { width: columns[1].w });
    if (y + height > bottom) {
      doc.addPage();
      y = MARGIN;
      headerRow();
      doc.font('Sans').fontSize(9);
    }
    const cells = [
      f.date(line.date),
      line.description,
      f.percent(line.taxPercent),
      f.money(line.net),
      f.money(line.total),
    ];
    cells.forEach((text, i) => {
      const c = columns[i];
      doc.text(text, c.x, y, { width: c.w, align: c.align });
    });
    y += Math.max(height, 11) + 5;
  }
  doc.moveTo(MARGIN, y).lineTo(right, y).lineWidth(0.5).strokeColor(INK).stroke();
  y += 8;

  // The totals.
  const totals: [string, string, boolean][] = [
    [words.totalNet, f.money(content.totalNet), false],
    ...content.taxes.map((t): [string, string, boolean] => [
      `${words.taxOf(f.percent(t.taxPercent))} (${f.money(t.net)})`,
      f.money(t.tax),
      false,
    ]),
    [words.total, f.money(content.total), true],
  ];
  if (y + totals.length * 16 > bottom) {
    doc.addPage();
    y = MARGIN;
  }
  for (const [label, value, strong] of totals) {
    doc
      .font(strong ? 'Sans-Bold' : 'Sans')
      .fontSize(strong ? 11 : 9)
      .fillColor(INK);
    doc.text(label, right - 330, y, { width: 240, align: 'right' });
    doc.text(value, right - 80, y, { width: 80, align: 'right' });
    y += strong ? 18 : 14;
  }

  doc.font('Sans').fontSize(10).fillColor(INK);
  for (const block of [content.text, content.footer]) {
    if (!block) continue;
    y += 14;
    const height = doc.heightOfString(block, { width });
    if (y + height > bottom) {
      doc.addPage();
      y = MARGIN;
    }
    doc.fillColor(block === content.footer ? GREY : INK).fontSize(block === content.footer ? 9 : 10);
    doc.text(block, MARGIN, y, { width });
    y = doc.y;
  }

  // Page numbers, once the number of pages is known.
  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    doc.page.margins.bottom = 0; // the number sits below the text's area: no new page for it
    doc.font('Sans').fontSize(8).fillColor(GREY);
    doc.text(`${content.number} · ${words.page(i + 1, range.count)}`, MARGIN, A4.height - MARGIN - 10, {
      width,
      align: 'right',
      lineBreak: false,
    });
  }
  doc.end();
  return done;
}
