import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';
import { describe, expect, it } from 'vitest';
import {
  isBankingDay,
  isValidCreditorId,
  isValidMandateReference,
  nextBankingDay,
  type SepaFile,
  sepaIdentifier,
  sepaText,
  sepaXml,
  sumAmounts,
} from '../../hub/src/billing/sepa-xml.js';

const schema = {
  fileName: 'pain.008.001.02.xsd',
  contents: readFileSync(
    fileURLToPath(new URL('../fixtures/sepa/pain.008.001.02.xsd', import.meta.url)),
    'utf8',
  ),
};

describe('SEPA file rules', () => {
  it('spells out umlauts and drops accents and other characters outside the SEPA set', () => {
    expect(sepaText('Jürgen Groß', 70)).toBe('Juergen Gross');
    expect(sepaText('ÄÖÜ äöü', 70)).toBe('AeOeUe aeoeue');
    expect(sepaText('Café Crème, Łódź & Søn', 70)).toBe('Cafe Creme, Lodz + Son');
    expect(sepaText('Name <with> "quotes"; tab\there', 70)).toBe("Name with 'quotes' tab here");
    expect(sepaText('日本', 70)).toBe('');
    expect(sepaText('x'.repeat(100), 70)).toHaveLength(70);
  });

  it('makes identifiers of the SEPA set without spaces, at most 35 characters', () => {
    expect(sepaIdentifier('RE 2026/0001')).toBe('RE-2026/0001');
    expect(sepaIdentifier('/a//b/')).toBe('a/b');
    expect(sepaIdentifier('Ä'.repeat(40))).toHaveLength(35);
    expect(sepaIdentifier('###')).toBe('NOTPROVIDED');
    expect(sepaIdentifier('2026 #12')).toBe('2026-12');
    expect(isValidMandateReference('MAND-J-1')).toBe(true);
    expect(isValidMandateReference('MAND J 1')).toBe(false);
    expect(isValidMandateReference('/M1')).toBe(false);
    expect(isValidMandateReference('M//1')).toBe(false);
    expect(isValidMandateReference('Müller')).toBe(false);
  });

  it('checks creditor ids by their check digits, ignoring the business code', () => {
    expect(isValidCreditorId('DE98ZZZ09999999999')).toBe(true);
    expect(isValidCreditorId('de98 zzz0 9999 9999 99')).toBe(true);
    expect(isValidCreditorId('DE98ABC09999999999')).toBe(true);
    expect(isValidCreditorId('DE97ZZZ09999999999')).toBe(false);
    expect(isValidCreditorId('DE98ZZZ09999999998')).toBe(false);
    expect(isValidCreditorId('DE98')).toBe(false);
    expect(isValidCreditorId('')).toBe(false);
  });

  it('knows the TARGET2 banking days', () => {
    expect(isBankingDay('2026-12-01')).toBe(true); // a Tuesday
    expect(isBankingDay('2026-11-28')).toBe(false); // Saturday
    expect(isBankingDay('2026-11-29')).toBe(false); // Sunday
    for (const closed of ['2027-01-01', '2027-05-01', '2026-12-25', '2026-12-26', '2026-04-03', '2026-04-06'])
      expect(isBankingDay(closed), closed).toBe(false);
    // Good Friday and Easter Monday move: 2027's are 26 and 29 March.
    expect(isBankingDay('2027-03-26')).toBe(false);
    expect(isBankingDay('2027-03-29')).toBe(false);
    expect(isBankingDay('2027-03-30')).toBe(true);
    expect(isBankingDay('2026-05-14')).toBe(true); // Ascension: banks settle
    expect(nextBankingDay('2026-12-24')).toBe('2026-12-28');
    expect(nextBankingDay('2026-11-27')).toBe('2026-11-30');
  });

  it('sums amounts exactly with two decimals', () => {
    expect(sumAmounts(['0.10', '0.20'])).toBe('0.30');
    expect(sumAmounts(['1000000.01', '0.99'])).toBe('1000001.00');
    expect(sumAmounts([])).toBe('0.00');
  });

  it('writes a file the published 001.02 schema accepts, the text escaped', async () => {
    const file: SepaFile = {
      messageId: 'SEPA-20261201-ABC',
      createdAt: '2026-11-27T09:30:00.000Z',
      collectionDate: '2026-12-01',
      creditor: {
        name: "O'Hara + Co",
        iban: 'DE02120300000000202051',
        bic: null,
        creditorId: 'DE98ZZZ09999999999',
      },
      debits: [
        {
          endToEndId: 'R-1',
          amount: '10.00',
          sequenceType: 'RCUR',
          mandateReference: 'M1',
          mandateDate: '2026-01-01',
          debtorName: "D'Arcy",
          iban: 'DE89370400440532013000',
          bic: null,
          remittance: 'Invoice R-1',
        },
      ],
    };
    const xml = sepaXml(file, '001.02');
    expect(xml).toContain('<Nm>O&apos;Hara + Co</Nm>');
    expect(xml).toContain('<CreDtTm>2026-11-27T09:30:00Z</CreDtTm>');
    const result = await validateXML({ xml: { fileName: 'f.xml', contents: xml }, schema });
    expect(result.errors.map((e) => e.message)).toEqual([]);
    // Only a RCUR block when there is no first collection.
    expect(xml.match(/<PmtInf>/g)).toHaveLength(1);
    expect(xml).toContain('<SeqTp>RCUR</SeqTp>');
    expect(xml).toContain('<PmtInfId>SEPA-20261201-ABC-RCUR</PmtInfId>');
  });
});
