import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dateOrder,
  decodeSpreadsheet,
  detectSeparator,
  fieldOfHeading,
  parseLocalDate,
} from '../../hub/src/import/members-csv.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

describe('reading a spreadsheet', () => {
  it('reads valid UTF-8 as UTF-8 and anything else as Windows-1252', () => {
    expect(decodeSpreadsheet(Buffer.from('Vorname\nJürgen\n', 'utf8'))).toEqual({
      text: 'Vorname\nJürgen\n',
      encoding: 'utf-8',
    });
    // ü is 0xFC in Windows-1252: not valid UTF-8.
    expect(decodeSpreadsheet(Buffer.from('Vorname\nJürgen\n', 'latin1'))).toEqual({
      text: 'Vorname\nJürgen\n',
      encoding: 'windows-1252',
    });
    // The euro sign is 0x80 in Windows-1252 (a control character in Latin-1).
    expect(decodeSpreadsheet(Buffer.from([0x80, 0x0a])).text).toBe('€\n');
    // A BOM is not part of the first heading.
    expect(decodeSpreadsheet(Buffer.from('\ufeffVorname\n', 'utf8')).text).toBe('Vorname\n');
  });

  it('takes the separator the heading line has more of, outside quotes', () => {
    expect(detectSeparator('Vorname;Nachname;E-Mail\nA;B;c@x')).toBe(';');
    expect(detectSeparator('First name,Last name\nA,B')).toBe(',');
    expect(detectSeparator('"Name, first";"Name, last";x\n')).toBe(';');
  });

  it('matches English and German headings to member fields', () => {
    expect(fieldOfHeading('First name')).toBe('firstName');
    expect(fieldOfHeading('Vorname')).toBe('firstName');
    expect(fieldOfHeading('E-Mail')).toBe('emailAddress');
    expect(fieldOfHeading('Mitgliedsnummer')).toBe('memberNumber');
    expect(fieldOfHeading('Geburtsdatum')).toBe('dateOfBirth');
    expect(fieldOfHeading('PLZ')).toBe('zip');
    expect(fieldOfHeading('Straße')).toBe('address');
    expect(fieldOfHeading('emailAddress')).toBe('emailAddress');
    expect(fieldOfHeading('Shoe size')).toBeNull();
  });

  it('reads dates as the locale writes them, and ISO dates everywhere', () => {
    expect(dateOrder('de').example).toBe('31.12.2025');
    expect(dateOrder('en-US').example).toBe('12/31/2025');
    expect(parseLocalDate('31.12.2025', 'de-AT')).toBe('2025-12-31');
    expect(parseLocalDate('1.2.1990', 'de')).toBe('1990-02-01');
    expect(parseLocalDate('12/31/2025', 'en-US')).toBe('2025-12-31');
    expect(parseLocalDate('02/01/1990', 'en-US')).toBe('1990-02-01');
    expect(parseLocalDate('01/02/1990', 'en-GB')).toBe('1990-02-01');
    expect(parseLocalDate('2025-12-31', 'de')).toBe('2025-12-31');
    expect(parseLocalDate('12/31/2025', 'de')).toBeUndefined();
    expect(parseLocalDate('31.02.2025', 'de')).toBeUndefined();
    expect(parseLocalDate('31.12.25', 'de')).toBeUndefined();
    expect(parseLocalDate('tomorrow', 'de')).toBeUndefined();
  });
});

describeEachDialect('POST /members/import', (dialect) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(dialect);
  });
  afterAll(() => t.close());

  const upload = (file: Buffer | string, query = '', token = t.owner.token, type = 'text/csv') =>
    t.call(token, {
      method: 'POST',
      url: `/api/v1/members/import${query}`,
      headers: { 'content-type': type },
      payload: typeof file === 'string' ? Buffer.from(file, 'utf8') : file,
    });
  const members = async () =>
    (await t.call(t.owner.token, { method: 'GET', url: '/api/v1/members?limit=1000' })).json() as {
      firstName: string;
      lastName: string;
      emailAddress: string | null;
      dateOfBirth: string | null;
      memberNumber: string | null;
      city: string | null;
    }[];
  const setLocale = async (locale: string) => {
    const space = (
      await t.call(t.owner.token, { method: 'GET', url: `/api/v1/spaces/${t.owner.spaceId}` })
    ).json();
    const res = await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/spaces/${t.owner.spaceId}`,
      payload: { locale, lockVersion: space.lockVersion },
    });
    expect(res.statusCode).toBe(200);
  };

  it('UTF-8 with commas and ISO dates: a preview first, then the import', async () => {
    const csv = [
      'First name,Last name,E-mail,Member number,Date of birth,City,Shoe size',
      'Jürgen,Müller,juergen@example.org,M-1,1980-04-01,Wien,44',
      'Zoë,"O\'Brien, Jr.",zoe@example.org,M-2,,Graz,38',
    ].join('\r\n');
    const dry = await upload(csv, '?dryRun=true');
    expect(dry.statusCode).toBe(200);
    const preview = dry.json();
    expect(preview).toMatchObject({
      encoding: 'utf-8',
      separator: ',',
      rows: 2,
      errors: [],
      wouldCreate: 2,
      created: 0,
      imported: false,
      dryRun: true,
    });
    expect(preview.columns.map((c: { field: string | null }) => c.field)).toEqual([
      'firstName',
      'lastName',
      'emailAddress',
      'memberNumber',
      'dateOfBirth',
      'city',
      null,
    ]);
    expect(preview.preview[1]).toEqual({
      line: 3,
      member: {
        firstName: 'Zoë',
        lastName: "O'Brien, Jr.",
        emailAddress: 'zoe@example.org',
        memberNumber: 'M-2',
        city: 'Graz',
      },
    });
    expect((await members()).some((m) => m.firstName === 'Jürgen')).toBe(false);

    const done = await upload(csv);
    expect(done.json()).toMatchObject({ created: 2, imported: true });
    const jurgen = (await members()).find((m) => m.emailAddress === 'juergen@example.org');
    expect(jurgen).toMatchObject({
      firstName: 'Jürgen',
      lastName: 'Müller',
      memberNumber: 'M-1',
      dateOfBirth: '1980-04-01',
    });

    // The same file again: both are members already, nothing is added.
    const again = (await upload(csv)).json();
    expect(again).toMatchObject({ created: 0, imported: false, errors: [] });
    expect(again.existing.map((e: { line: number }) => e.line)).toEqual([2, 3]);
  });

  it('Windows-1252 with semicolons and German dates (space locale de-AT)', async () => {
    await setLocale('de-AT');
    const csv = [
      'Vorname;Nachname;E-Mail;Geburtsdatum;Ort',
      'Günther;Groß;guenther@example.org;31.12.1975;Köln',
    ].join('\r\n');
    const res = (await upload(Buffer.from(csv, 'latin1'))).json();
    expect(res).toMatchObject({
      encoding: 'windows-1252',
      separator: ';',
      dateExample: '31.12.2025',
      created: 1,
    });
    expect((await members()).find((m) => m.emailAddress === 'guenther@example.org')).toMatchObject({
      firstName: 'Günther',
      lastName: 'Groß',
      dateOfBirth: '1975-12-31',
      city: 'Köln',
    });
  });

  it('UTF-8 with semicolons and Windows-1252 with commas, dates as en-US writes them', async () => {
    await setLocale('en-US');
    const semicolons = ['First name;Last name;Email;Birthday', 'Ana;Núñez;ana@example.org;12/31/1990'].join(
      '\n',
    );
    expect((await upload(semicolons)).json()).toMatchObject({
      encoding: 'utf-8',
      separator: ';',
      created: 1,
    });
    const commas = ['First name,Last name,Email,Birthday', 'René,Lefèvre,rene@example.org,02/01/1991'].join(
      '\n',
    );
    expect((await upload(Buffer.from(commas, 'latin1'))).json()).toMatchObject({
      encoding: 'windows-1252',
      separator: ',',
      created: 1,
    });
    const all = await members();
    expect(all.find((m) => m.emailAddress === 'ana@example.org')?.dateOfBirth).toBe('1990-12-31');
    expect(all.find((m) => m.emailAddress === 'rene@example.org')).toMatchObject({
      lastName: 'Lefèvre',
      dateOfBirth: '1991-02-01',
    });
  });

  it('wrong rows: each with its line, nothing imported unless they are skipped', async () => {
    await setLocale('de');
    const csv = [
      'Vorname;Nachname;E-Mail;Geburtsdatum',
      'Good;One;good1@example.org;01.02.1990',
      ';Nameless;nameless@example.org;',
      'Bad;Mail;not-an-address;',
      'Bad;Date;baddate@example.org;1990-13-45',
      '',
      'Twice;A;twice@example.org;',
      'Twice;B;TWICE@example.org;',
      'Good;Two;good2@example.org;',
    ].join('\n');
    const before = (await members()).length;
    const refused = (await upload(csv)).json();
    expect(refused.imported).toBe(false);
    expect(refused.created).toBe(0);
    expect(refused.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5, 8]);
    expect(refused.errors[0].messages.join()).toMatch(/Vorname/);
    expect(refused.errors[1].messages.join()).toMatch(/E-Mail/);
    expect(refused.errors[2].messages.join()).toMatch(
      /"1990-13-45" is not a date \(write it as 31\.12\.2025\)/,
    );
    expect(refused.errors[3].messages.join()).toMatch(/twice/i);
    expect((await members()).length).toBe(before);

    const skipped = (await upload(csv, '?skipBadRows=true')).json();
    expect(skipped).toMatchObject({ imported: true, created: 3 });
    const emails = (await members()).map((m) => m.emailAddress);
    expect(emails).toEqual(
      expect.arrayContaining(['good1@example.org', 'good2@example.org', 'twice@example.org']),
    );
    expect(emails).not.toContain('nameless@example.org');
    expect((await members()).length).toBe(before + 3);
  });

  it('a file without a first-name column, or not a CSV body, changes nothing', async () => {
    const noName = (await upload('E-Mail;Ort\nx@example.org;Wien\n')).json();
    expect(noName.errors).toEqual([
      { line: 1, messages: [expect.stringMatching(/no column for the first name/)] },
    ]);
    expect(noName.imported).toBe(false);
    const json = await upload(JSON.stringify({ firstName: 'A' }), '', t.owner.token, 'application/json');
    expect(json.statusCode).toBe(415);
  });

  it('is for admins only', async () => {
    const member = await t.newMemberWithToken('Plain', 'Member');
    const res = await upload('Vorname\nSneaky\n', '', member.token);
    expect(res.statusCode).toBe(403);
    expect((await members()).some((m) => m.firstName === 'Sneaky')).toBe(false);
  });
});
