import { MemberCreate } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import type { Db } from '../db/crud.js';
import { rowById } from '../db/records.js';
import { createMember } from '../identity/members.js';
import { membersNamed } from '../identity/members.repository.js';
import type { Caller } from '../kernel/caller.js';

/**
 * Members from a spreadsheet (`makerspace-hub import csv members FILE` and the admin console's
 * upload, POST /api/v1/members/import): the file is read as UTF-8 when it is valid UTF-8, else
 * as Windows-1252 (what Excel writes on Windows); the separator is `,` or `;`, whichever the
 * header line has more of; each column is matched to a member field by its heading (English or
 * German); dates are read as the space's locale writes them (31.12.2025 for de, 12/31/2025 for
 * en-US, 31/12/2025 for en-GB) or as ISO 8601. Nothing is written while a row is wrong, unless
 * the wrong rows are to be skipped; a row whose e-mail address is already a member's is left as
 * it is.
 */

/** Member fields a column may fill, with the headings that mean it (compared without case, spaces, dashes). */
const headings: Record<string, string[]> = {
  memberNumber: [
    'membernumber',
    'memberno',
    'member',
    'number',
    'no',
    'nr',
    'mitgliedsnummer',
    'mitgliedsnr',
    'mitgliednr',
    'nummer',
  ],
  firstName: ['firstname', 'givenname', 'forename', 'vorname'],
  lastName: ['lastname', 'surname', 'familyname', 'name', 'nachname', 'familienname'],
  emailAddress: ['emailaddress', 'email', 'mail', 'emailadresse', 'mailadresse'],
  phone: ['phone', 'telephone', 'mobile', 'phonenumber', 'telefon', 'tel', 'handy', 'mobil', 'telefonnummer'],
  dateOfBirth: ['dateofbirth', 'birthday', 'birthdate', 'born', 'geburtsdatum', 'geburtstag', 'geboren'],
  gender: ['gender', 'sex', 'geschlecht'],
  company: ['company', 'organisation', 'organization', 'firma', 'unternehmen'],
  address: ['address', 'street', 'streetaddress', 'adresse', 'strasse', 'straße', 'anschrift'],
  address2: ['address2', 'addressline2', 'adresszusatz', 'zusatz'],
  zip: ['zip', 'zipcode', 'postcode', 'postalcode', 'plz', 'postleitzahl'],
  city: ['city', 'town', 'ort', 'stadt', 'wohnort'],
  region: ['region', 'state', 'province', 'county', 'bundesland', 'kanton'],
  countryCode: ['countrycode', 'country', 'land', 'laendercode', 'ländercode'],
  notes: [
    'notes',
    'note',
    'comment',
    'comments',
    'remarks',
    'notizen',
    'notiz',
    'bemerkung',
    'bemerkungen',
    'anmerkungen',
  ],
  language: ['language', 'lang', 'sprache'],
};

const normalise = (heading: string) => heading.toLowerCase().replace(/[\s_\-.:/#]+/g, '');

/** The member field a column heading means, or null (the column is not imported). */
export function fieldOfHeading(heading: string): string | null {
  const key = normalise(heading);
  if (key === '') return null;
  for (const [field, names] of Object.entries(headings)) {
    if (normalise(field) === key || names.includes(key)) return field;
  }
  return null;
}

/** UTF-8 when the bytes are valid UTF-8 (a BOM is dropped), else Windows-1252. */
export function decodeSpreadsheet(bytes: Uint8Array): { text: string; encoding: 'utf-8' | 'windows-1252' } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    return { text, encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
}

/**
 * Windows-1252's characters at 0x80-0x9F (€, „, “, ”, –, Š, ...); the other bytes are Latin-1.
 * Written out because Node's TextDecoder('windows-1252') decodes those bytes as Latin-1 control
 * characters.
 */
const cp1252High =
  '\u20ac\ufffd\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\ufffd\u017d\ufffd' +
  '\ufffd\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\ufffd\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  const chars = new Array<string>(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    chars[i] = b >= 0x80 && b <= 0x9f ? cp1252High[b - 0x80] : String.fromCharCode(b);
  }
  return chars.join('');
}

/** `;` when the first line has more semicolons than commas outside quotes, else `,`. */
export function detectSeparator(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** The order of day, month and year in a locale's short numeric dates (de: D.M.Y, en-US: M/D/Y). */
export function dateOrder(locale: string): { order: ('day' | 'month' | 'year')[]; example: string } {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat(locale, {
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      timeZone: 'UTC',
    });
  } catch {
    format = new Intl.DateTimeFormat('en-GB', {
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      timeZone: 'UTC',
    });
  }
  const sample = new Date(Date.UTC(2025, 11, 31));
  const order = format
    .formatToParts(sample)
    .filter((p) => p.type === 'day' || p.type === 'month' || p.type === 'year')
    .map((p) => p.type as 'day' | 'month' | 'year');
  return { order, example: format.format(sample) };
}

/** A date written as the locale writes it, or as ISO 8601, as YYYY-MM-DD; undefined when it is none. */
export function parseLocalDate(value: string, locale: string): string | undefined {
  const text = value.trim();
  let y: number;
  let m: number;
  let d: number;
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (iso) {
    [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else {
    const parts = /^(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})$/.exec(text);
    if (!parts) return undefined;
    const numbers = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
    const { order } = dateOrder(locale);
    const at = (part: 'day' | 'month' | 'year') => numbers[order.indexOf(part)];
    [y, m, d] = [at('year'), at('month'), at('day')];
    if (y < 100) return undefined;
  }
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d)
    return undefined;
  return date.toISOString().slice(0, 10);
}

export interface CsvColumn {
  heading: string;
  /** The member field it fills, or null: not imported. */
  field: string | null;
}

export interface CsvRowError {
  /** The line of the file (1 is the heading line). */
  line: number;
  messages: string[];
}

export interface CsvImportResult {
  encoding: 'utf-8' | 'windows-1252';
  separator: ',' | ';';
  /** The locale dates were read in, and how it writes 31 December 2025. */
  dateLocale: string;
  dateExample: string;
  columns: CsvColumn[];
  /** Data rows in the file. */
  rows: number;
  /** The first rows as they would be imported (field -> value), each with its line. */
  preview: { line: number; member: Record<string, unknown> }[];
  errors: CsvRowError[];
  /** Rows whose e-mail address is already a member's: left as they are. */
  existing: { line: number; member: number }[];
  /** Members created (0 in a dry run, or when rows are wrong and not skipped). */
  created: number;
  /** Members a dry run would create. */
  wouldCreate: number;
  /** Whether anything was written. */
  imported: boolean;
  dryRun: boolean;
}

export interface CsvImportOptions {
  dryRun: boolean;
  /** Import the good rows and leave out the wrong ones (else nothing is imported while one is wrong). */
  skipBadRows: boolean;
  previewRows?: number;
}

type Row = { line: number; cells: string[] };

/** The file's rows; the CSV parser is loaded on the first import (a hub seldom imports). */
async function readRows(text: string, separator: string): Promise<Row[]> {
  const { parse } = await import('csv-parse/sync');
  const records = parse(text, {
    delimiter: separator,
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  return records
    .map((r) => ({ line: r.info.lines, cells: r.record }))
    .filter((r) => r.cells.some((c) => c !== ''));
}

/** Reads, checks and (unless a dry run, or rows are wrong) imports the members of a CSV file. */
export async function importMembersCsv(
  ctx: Pick<HubContext, 'db' | 'clock' | 'events'>,
  caller: Caller,
  bytes: Uint8Array,
  options: CsvImportOptions,
): Promise<CsvImportResult> {
  const { text, encoding } = decodeSpreadsheet(bytes);
  const separator = detectSeparator(text);
  const space = await rowById(ctx.db, 'spaces', caller.spaceId);
  const locale = space?.locale ?? 'en-US';
  const { example } = dateOrder(locale);
  let rows: Row[];
  try {
    rows = await readRows(text, separator);
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    return {
      ...empty(encoding, separator, locale, example, options.dryRun),
      errors: [{ line: line ?? 1, messages: [`not a readable CSV file: ${(err as Error).message}`] }],
    };
  }
  const [head, ...data] = rows;
  if (!head) {
    return {
      ...empty(encoding, separator, locale, example, options.dryRun),
      errors: [{ line: 1, messages: ['the file is empty'] }],
    };
  }
  const columns = head.cells.map((heading) => ({ heading, field: fieldOfHeading(heading) }));
  const seen = new Set<string>();
  const result: CsvImportResult = {
    ...empty(encoding, separator, locale, example, options.dryRun),
    columns,
    rows: data.length,
  };
  const fieldsUsed = new Map<string, number>();
  for (const c of columns) if (c.field) fieldsUsed.set(c.field, (fieldsUsed.get(c.field) ?? 0) + 1);
  const headErrors: string[] = [];
  if (!fieldsUsed.has('firstName'))
    headErrors.push('no column for the first name (e.g. "First name" or "Vorname")');
  for (const [field, n] of fieldsUsed) if (n > 1) headErrors.push(`${n} columns for ${field}: keep one`);
  if (headErrors.length > 0) {
    result.errors.push({ line: head.line, messages: headErrors });
    return result;
  }
  const good: { line: number; body: Record<string, unknown> }[] = [];
  for (const row of data) {
    const messages: string[] = [];
    const member: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const value = row.cells[i] ?? '';
      if (!column.field || value === '') return;
      if (column.field === 'dateOfBirth') {
        const date = parseLocalDate(value, locale);
        if (date === undefined)
          messages.push(`${column.heading}: "${value}" is not a date (write it as ${example})`);
        else member.dateOfBirth = date;
      } else if (column.field === 'gender') {
        const g = genderOf(value);
        if (g === undefined) messages.push(`${column.heading}: "${value}" is not male, female or other`);
        else member.gender = g;
      } else if (column.field === 'countryCode') {
        member.countryCode = value.toUpperCase();
      } else member[column.field] = value;
    });
    if (result.preview.length < (options.previewRows ?? 5)) result.preview.push({ line: row.line, member });
    const parsed = MemberCreate.safeParse(member);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? '');
        const heading = columns.find((c) => c.field === field)?.heading ?? field;
        messages.push(
          field === 'firstName' && member.firstName === undefined
            ? `${heading}: missing`
            : `${heading}: ${issue.message}`,
        );
      }
    }
    const email = typeof member.emailAddress === 'string' ? member.emailAddress.toLowerCase() : undefined;
    if (email !== undefined && seen.has(email))
      messages.push(
        `${columns.find((c) => c.field === 'emailAddress')?.heading}: ${member.emailAddress} is in the file twice`,
      );
    if (email !== undefined) seen.add(email);
    if (messages.length > 0) {
      result.errors.push({ line: row.line, messages });
      continue;
    }
    if (email !== undefined) {
      const found = await membersNamed(ctx.db, email, caller.accountId);
      if (found.length > 0) {
        result.existing.push({ line: row.line, member: found[0].id });
        continue;
      }
    }
    good.push({ line: row.line, body: parsed.success ? parsed.data : member });
  }
  result.wouldCreate = good.length;
  if (options.dryRun || (result.errors.length > 0 && !options.skipBadRows) || good.length === 0)
    return result;
  await ctx.events.transaction(async (trx: Db) => {
    const at = ctx.clock.now().toISOString();
    for (const row of good) await createMember(trx, caller, { ...row.body, space: caller.spaceId }, at);
  });
  result.created = good.length;
  result.imported = true;
  return result;
}

function genderOf(value: string): 'male' | 'female' | 'other' | undefined {
  const v = value.trim().toLowerCase();
  if (['m', 'male', 'man', 'männlich', 'maennlich', 'mann', 'herr'].includes(v)) return 'male';
  if (['f', 'w', 'female', 'woman', 'weiblich', 'frau'].includes(v)) return 'female';
  if (['o', 'd', 'x', 'other', 'divers', 'andere'].includes(v)) return 'other';
  return undefined;
}

function empty(
  encoding: CsvImportResult['encoding'],
  separator: CsvImportResult['separator'],
  dateLocale: string,
  dateExample: string,
  dryRun: boolean,
): CsvImportResult {
  return {
    encoding,
    separator,
    dateLocale,
    dateExample,
    columns: [],
    rows: 0,
    preview: [],
    errors: [],
    existing: [],
    created: 0,
    wouldCreate: 0,
    imported: false,
    dryRun,
  };
}

/** The result as the CLI prints it: what was found, each wrong row with its line, what was done. */
/** "1 member", "2 members". */
const counted = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

export function csvResultText(r: CsvImportResult): string {
  const out = [
    `${counted(r.rows, 'row', 'rows')}; ${r.encoding}, separator "${r.separator}", dates as ${r.dateExample} (${r.dateLocale})`,
    'Columns:',
    ...r.columns.map((c) => `  ${c.heading || '(no heading)'} -> ${c.field ?? 'not imported'}`),
  ];
  if (r.errors.length > 0) {
    out.push(`Wrong rows (${r.errors.length}):`);
    for (const e of r.errors) out.push(`  line ${e.line}: ${e.messages.join('; ')}`);
  }
  if (r.existing.length > 0)
    out.push(
      `Already members (left as they are): ${r.existing.length} (lines ${r.existing
        .slice(0, 10)
        .map((e) => e.line)
        .join(', ')}${r.existing.length > 10 ? ', ...' : ''})`,
    );
  if (r.dryRun)
    out.push(`Dry run: ${counted(r.wouldCreate, 'member', 'members')} would be created; nothing written.`);
  else if (r.imported)
    out.push(
      `Created ${counted(r.created, 'member', 'members')}${r.errors.length > 0 ? `; ${counted(r.errors.length, 'wrong row', 'wrong rows')} skipped` : ''}.`,
    );
  else if (r.errors.length > 0)
    out.push('Nothing imported: correct the rows above, or run again with --skip-bad-rows.');
  else out.push('Nothing to import.');
  return `${out.join('\n')}\n`;
}
