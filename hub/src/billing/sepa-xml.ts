import type * as IbanTools from 'ibantools';
import { onFirstUse } from '../kernel/on-first-use.js';
import { type Amount, formatMoney, parseMoney, roundToCents, sum } from '../kernel/money.js';

/**
 * The pain.008 file of a SEPA direct debit batch (CustomerDirectDebitInitiation, SEPA Core) and
 * the rules of its contents, as pure functions: text in the SEPA character set, identifiers,
 * creditor ids, banking days. docs/PAYMENTS.md, "SEPA direct debit files" describes the file.
 */

export type SepaVersion = '001.02' | '001.08';
export const sepaVersions: readonly SepaVersion[] = ['001.02', '001.08'];

export interface SepaCreditor {
  name: string;
  iban: string;
  bic: string | null;
  creditorId: string;
}

export interface SepaDebit {
  endToEndId: string;
  amount: string;
  sequenceType: 'FRST' | 'RCUR';
  mandateReference: string;
  mandateDate: string;
  debtorName: string;
  iban: string;
  bic: string | null;
  remittance: string;
}

export interface SepaFile {
  messageId: string;
  /** When the batch was made (CreDtTm), an ISO timestamp. */
  createdAt: string;
  collectionDate: string;
  creditor: SepaCreditor;
  debits: SepaDebit[];
}

// ---- text -------------------------------------------------------------------------------------

const umlauts: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  å: 'a',
  Å: 'A',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  þ: 'th',
  Þ: 'Th',
  '&': '+',
  '€': 'EUR',
  '–': '-',
  '—': '-',
  '‘': "'",
  '’': "'",
  '"': "'",
  '“': "'",
  '”': "'",
  '„': "'",
};

/** Characters every SEPA bank accepts (EPC Latin character set). */
const sepaCharacter = /[A-Za-z0-9/\-?:().,'+ ]/;

/**
 * Text in the SEPA character set: umlauts and ß spelled out (ä -> ae), accents dropped
 * (é -> e), other characters as a space; runs of spaces become one, at most `max` characters.
 */
export function sepaText(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    const mapped =
      umlauts[ch] ??
      ch
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .split('')
        .map((c) => (sepaCharacter.test(c) ? c : ' '))
        .join('');
    out += mapped;
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, max).trim();
}

/**
 * An identifier (end-to-end id, message id) in the SEPA set without spaces: other characters
 * become '-', never starting with '/' or holding '//', at most 35 characters.
 */
export function sepaIdentifier(text: string): string {
  const id = sepaText(text, 200)
    .replace(/[^A-Za-z0-9/\-?:().,'+]/g, '-')
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+/, '')
    .slice(0, 35)
    .replace(/\/+$/, '');
  return id || 'NOTPROVIDED';
}

/** Is this a mandate reference a bank takes as it is (SEPA set, no spaces, 1 to 35)? */
export function isValidMandateReference(reference: string): boolean {
  return (
    /^[A-Za-z0-9/\-?:().,'+]{1,35}$/.test(reference) &&
    !reference.startsWith('/') &&
    !reference.includes('//')
  );
}

// ---- bank data -----------------------------------------------------------------------------

/** IBAN in electronic format: no spaces, upper case. */
export const compactIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

/** IBAN and BIC checks (ibantools), loaded by the first account number to check. */
export const ibanTools = onFirstUse<typeof IbanTools>('ibantools');
export const validIban = (iban: string) => ibanTools().isValidIBAN(compactIban(iban));
export const validBic = (bic: string) => ibanTools().isValidBIC(bic.replace(/\s+/g, '').toUpperCase());

/** Digits of a text for the ISO 7064 mod 97 check: A = 10 ... Z = 35. */
function mod97(text: string): number {
  let rest = 0;
  for (const ch of text) {
    const digits = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest;
}

/**
 * Is this a SEPA creditor identifier (CI)? Country code, two check digits, a three-character
 * business code that the check ignores, and the national identifier (EPC262-08): the check
 * digits are those of ISO 7064 mod 97-10 over the national identifier and the country code.
 */
export function isValidCreditorId(value: string): boolean {
  const ci = value.replace(/\s+/g, '').toUpperCase();
  const match = /^([A-Z]{2})(\d{2})[A-Z0-9]{3}([A-Z0-9]{1,28})$/.exec(ci);
  if (!match) return false;
  const [, country, check, national] = match;
  return mod97(`${national}${country}${check}`) === 1;
}

// ---- banking days ----------------------------------------------------------------------------

/** Easter Sunday of a year (Gregorian, the anonymous algorithm), as month and day. */
function easter(year: number): { month: number; day: number } {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return { month, day };
}

/**
 * Is this day (YYYY-MM-DD) a SEPA banking day, a day TARGET2 settles: not a Saturday or Sunday,
 * New Year's Day, Good Friday, Easter Monday, 1 May, 25 or 26 December.
 */
export function isBankingDay(date: string): boolean {
  const day = new Date(`${date}T12:00:00.000Z`);
  const weekday = day.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = date.slice(5);
  if (['01-01', '05-01', '12-25', '12-26'].includes(md)) return false;
  const e = easter(day.getUTCFullYear());
  const sunday = Date.UTC(day.getUTCFullYear(), e.month - 1, e.day, 12);
  const offset = Math.round((day.getTime() - sunday) / 86_400_000);
  return offset !== -2 && offset !== 1;
}

/** The first banking day after `date` (YYYY-MM-DD). */
export function nextBankingDay(date: string): string {
  const day = new Date(`${date}T12:00:00.000Z`);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (!isBankingDay(day.toISOString().slice(0, 10)));
  return day.toISOString().slice(0, 10);
}

// ---- the file ---------------------------------------------------------------------------------

const escapeXml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');

/** `<Tag>text</Tag>`, the text escaped. */
const el = (tag: string, text: string) => `<${tag}>${escapeXml(text)}</${tag}>`;

/** An amount as the file writes it: rounded to cents, two decimals ("12.50"). */
export const sepaAmount = (amount: Amount) => formatMoney(roundToCents(amount));

/** The sum of amounts written with two decimals (CtrlSum). */
export const sumAmounts = (amounts: string[]) => sepaAmount(sum(amounts.map((a) => parseMoney(a))));

/** A financial institution: its BIC (`BIC` in 001.02, `BICFI` in 001.08), or NOTPROVIDED. */
function agent(version: SepaVersion, bic: string | null): string {
  const id = bic
    ? el(version === '001.02' ? 'BIC' : 'BICFI', bic)
    : `<Othr>${el('Id', 'NOTPROVIDED')}</Othr>`;
  return `<FinInstnId>${id}</FinInstnId>`;
}

function debitXml(version: SepaVersion, d: SepaDebit): string {
  return [
    '<DrctDbtTxInf>',
    `<PmtId>${el('EndToEndId', d.endToEndId)}</PmtId>`,
    `<InstdAmt Ccy="EUR">${d.amount}</InstdAmt>`,
    '<DrctDbtTx><MndtRltdInf>',
    el('MndtId', d.mandateReference),
    el('DtOfSgntr', d.mandateDate),
    el('AmdmntInd', 'false'),
    '</MndtRltdInf></DrctDbtTx>',
    `<DbtrAgt>${agent(version, d.bic)}</DbtrAgt>`,
    `<Dbtr>${el('Nm', d.debtorName)}</Dbtr>`,
    `<DbtrAcct><Id>${el('IBAN', d.iban)}</Id></DbtrAcct>`,
    `<RmtInf>${el('Ustrd', d.remittance)}</RmtInf>`,
    '</DrctDbtTxInf>',
  ].join('');
}

function paymentInfoXml(
  version: SepaVersion,
  file: SepaFile,
  sequenceType: 'FRST' | 'RCUR',
  debits: SepaDebit[],
): string {
  const { creditor } = file;
  return [
    '<PmtInf>',
    el('PmtInfId', sepaIdentifier(`${file.messageId}-${sequenceType}`)),
    el('PmtMtd', 'DD'),
    el('BtchBookg', 'true'),
    el('NbOfTxs', String(debits.length)),
    el('CtrlSum', sumAmounts(debits.map((d) => d.amount))),
    '<PmtTpInf>',
    `<SvcLvl>${el('Cd', 'SEPA')}</SvcLvl>`,
    `<LclInstrm>${el('Cd', 'CORE')}</LclInstrm>`,
    el('SeqTp', sequenceType),
    '</PmtTpInf>',
    el('ReqdColltnDt', file.collectionDate),
    `<Cdtr>${el('Nm', creditor.name)}</Cdtr>`,
    `<CdtrAcct><Id>${el('IBAN', creditor.iban)}</Id></CdtrAcct>`,
    `<CdtrAgt>${agent(version, creditor.bic)}</CdtrAgt>`,
    el('ChrgBr', 'SLEV'),
    '<CdtrSchmeId><Id><PrvtId><Othr>',
    el('Id', creditor.creditorId),
    `<SchmeNm>${el('Prtry', 'SEPA')}</SchmeNm>`,
    '</Othr></PrvtId></Id></CdtrSchmeId>',
    ...debits.map((d) => debitXml(version, d)),
    '</PmtInf>',
  ].join('');
}

/**
 * The pain.008 document of a batch in the given version: one group header, then one payment
 * information block per sequence type (FRST first, then RCUR), each with its debits.
 */
export function sepaXml(file: SepaFile, version: SepaVersion): string {
  const namespace = `urn:iso:std:iso:20022:tech:xsd:pain.008.${version}`;
  const blocks = (['FRST', 'RCUR'] as const)
    .map((type) => [type, file.debits.filter((d) => d.sequenceType === type)] as const)
    .filter(([, debits]) => debits.length > 0)
    .map(([type, debits]) => paymentInfoXml(version, file, type, debits));
  const created = `${file.createdAt.slice(0, 19)}Z`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<Document xmlns="${namespace}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
    '<CstmrDrctDbtInitn>',
    '<GrpHdr>',
    el('MsgId', file.messageId),
    el('CreDtTm', created),
    el('NbOfTxs', String(file.debits.length)),
    el('CtrlSum', sumAmounts(file.debits.map((d) => d.amount))),
    `<InitgPty>${el('Nm', file.creditor.name)}</InitgPty>`,
    '</GrpHdr>',
    ...blocks,
    '</CstmrDrctDbtInitn>',
    '</Document>\n',
  ].join('');
}
