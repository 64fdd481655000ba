import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The hub's clock, fixed on a Friday: every "today" of these tests is 2026-11-27. */
const clock = { current: new Date('2026-11-27T09:30:00.000Z'), now: () => clock.current };

const fixtures = fileURLToPath(new URL('../fixtures/sepa/', import.meta.url));
/** Every published schema in the fixtures folder, by its namespace's version (001.02, ...). */
const schemas = readdirSync(fixtures)
  .filter((f) => f.endsWith('.xsd'))
  .map((f) => ({ fileName: f, contents: readFileSync(`${fixtures}${f}`, 'utf8') }));

/** Validates a file against the published schema of its version, if that schema is here. */
async function validateAgainstXsd(xml: string, version: string) {
  const schema = schemas.find((s) => s.fileName === `pain.008.${version}.xsd`);
  if (!schema) return null;
  const result = await validateXML({ xml: { fileName: 'batch.xml', contents: xml }, schema });
  return result.errors.map((e) => e.message);
}

/** The texts of every element of this name, in document order. */
const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]);
/** The payment information blocks of a file. */
const blocks = (xml: string) => [...xml.matchAll(/<PmtInf>([\s\S]*?)<\/PmtInf>/g)].map((m) => m[1]);

/**
 * The SEPA Core rules of the EPC implementation guidelines that a schema does not check, for
 * both versions: identifiers of 1 to 35 characters not starting or ending with '/' nor holding
 * '//', names of 1 to 70, amounts in euros from 0.01 with at most two decimals, agents by BIC or
 * NOTPROVIDED, the creditor id under scheme name SEPA. Answers what breaks them.
 */
function epcProblems(xml: string): string[] {
  const problems: string[] = [];
  for (const tag of ['MsgId', 'PmtInfId', 'EndToEndId', 'MndtId'])
    for (const id of texts(xml, tag))
      if (id.length < 1 || id.length > 35 || id.startsWith('/') || id.endsWith('/') || id.includes('//'))
        problems.push(`${tag} ${id}`);
  for (const name of texts(xml, 'Nm')) if (name.length < 1 || name.length > 70) problems.push(`Nm ${name}`);
  for (const m of xml.matchAll(/<InstdAmt Ccy="([A-Z]+)">([^<]*)</g))
    if (m[1] !== 'EUR' || !/^\d{1,9}\.\d{2}$/.test(m[2]) || Number(m[2]) < 0.01)
      problems.push(`InstdAmt ${m[2]}`);
  for (const sum of texts(xml, 'CtrlSum')) if (!/^\d+\.\d{2}$/.test(sum)) problems.push(`CtrlSum ${sum}`);
  for (const m of xml.matchAll(/<FinInstnId>(.*?)<\/FinInstnId>/g))
    if (!/^<(BIC|BICFI)>[A-Z0-9]{8,11}<\/\1>$|^<Othr><Id>NOTPROVIDED<\/Id><\/Othr>$/.test(m[1]))
      problems.push(`FinInstnId ${m[1]}`);
  for (const block of blocks(xml))
    if (
      !/<CdtrSchmeId><Id><PrvtId><Othr><Id>[A-Z0-9]+<\/Id><SchmeNm><Prtry>SEPA<\/Prtry><\/SchmeNm><\/Othr><\/PrvtId><\/Id><\/CdtrSchmeId>/.test(
        block,
      )
    )
      problems.push('CdtrSchmeId');
  for (const text of texts(xml, 'Ustrd')) if (text.length > 140) problems.push(`Ustrd ${text}`);
  return problems;
}

const creditor = {
  enableSepa: true,
  sepaCreditorId: 'DE98ZZZ09999999999',
  sepaIban: 'DE02 1203 0000 0000 2020 51',
  sepaBic: 'BYLADEM1001',
  sepaAccountOwnerName: 'Werkstatt Müllerstraße e.V.',
};

describeEachDialect('SEPA direct debit batches', (dialect) => {
  let t: TestHub;
  let owner: string;
  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const settings = async (change: Record<string, unknown>) => {
    const url = `/spaces/${t.owner.spaceId}/billing-settings`;
    const current = (await api(owner, 'GET', url)).json();
    const res = await api(owner, 'PUT', url, { lockVersion: current.lockVersion, ...change });
    expect(res.statusCode).toBe(200);
  };
  const member = async (firstName: string, lastName: string, method?: Record<string, unknown>) => {
    const m = (await api(owner, 'POST', '/members', { firstName, lastName })).json();
    if (method) {
      const res = await api(owner, 'PUT', `/members/${m.id}/payment-method`, method);
      expect(res.statusCode).toBe(200);
    }
    return m.id as number;
  };
  const invoice = async (memberId: number, price: string) => {
    expect(
      (await api(owner, 'POST', '/charges', { member: memberId, price, description: 'Laser time' }))
        .statusCode,
    ).toBe(201);
    const res = await api(owner, 'POST', '/invoices', { member: memberId });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number; number: string };
  };
  const getInvoice = async (id: number) => (await api(owner, 'GET', `/invoices/${id}`)).json();
  const batches = async () => (await api(owner, 'GET', '/sepa-batches')).json() as any[];
  const file = async (id: number, version = '001.02') => {
    const res = await api(owner, 'GET', `/sepa-batches/${id}/xml?version=${version}`);
    expect(res.statusCode).toBe(200);
    return { xml: res.body, headers: res.headers };
  };

  let juergen: number;
  let ana: number;
  let j1: { id: number; number: string };
  let j2: { id: number; number: string };
  let a1: { id: number; number: string };
  const skippedInvoices: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    await t.hub.jobs.stop();
    juergen = await member('Jürgen', 'Groß', {
      type: 'sepa',
      iban: 'DE89 3704 0044 0532 0130 00',
      bic: 'COBADEFFXXX',
      accountOwnerName: 'Jürgen Groß',
      mandateReference: 'MAND-J-1',
      mandateDate: '2026-10-01',
    });
    ana = await member('Ana', 'Šimić', {
      type: 'sepa',
      iban: 'AT611904300234573201',
      mandateDate: '2026-11-02',
    });
    j1 = await invoice(juergen, '30.00');
    j2 = await invoice(juergen, '12.5');
    a1 = await invoice(ana, '45.99');
    skippedInvoices.noMandate = (await invoice(await member('Bob', 'Cash'), '10')).id;
    skippedInvoices.mandateNotSigned = (
      await invoice(await member('Cleo', 'Unsigned', { type: 'sepa', iban: 'DE89370400440532013000' }), '10')
    ).id;
    skippedInvoices.invalidIban = (
      await invoice(
        await member('Dan', 'Typo', {
          type: 'sepa',
          iban: 'DE89370400440532013001',
          mandateDate: '2026-01-05',
        }),
        '10',
      )
    ).id;
    skippedInvoices.invalidBic = (
      await invoice(
        await member('Eve', 'Bic', {
          type: 'sepa',
          iban: 'DE89370400440532013000',
          bic: 'NOTABIC',
          mandateDate: '2026-01-05',
        }),
        '10',
      )
    ).id;
  });
  afterAll(async () => t?.close());

  describe('refusals that change nothing', () => {
    it('refuses while SEPA is off, naming the billing setting', async () => {
      const res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({ field: 'enableSepa' });
      expect(await batches()).toEqual([]);
    });

    it('refuses a creditor id or IBAN of the space that is not valid, naming it', async () => {
      await settings({ ...creditor, sepaCreditorId: 'DE97ZZZ09999999999' });
      let res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({ field: 'sepaCreditorId', sepaCreditorId: 'invalid' });
      await settings({ ...creditor, sepaIban: 'DE02120300000000202052' });
      res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({ field: 'sepaIban' });
      await settings({ ...creditor, sepaBic: 'NOTABIC' });
      res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({ field: 'sepaBic' });
      await settings({ ...creditor, sepaAccountOwnerName: null });
      res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({
        field: 'sepaAccountOwnerName',
        sepaAccountOwnerName: 'missing',
      });
      await settings(creditor);
      expect((await api(owner, 'GET', `/spaces/${t.owner.spaceId}/billing-settings`)).json().sepaBic).toBe(
        'BYLADEM1001',
      );
      expect(await batches()).toEqual([]);
      expect((await getInvoice(j1.id)).collection).toBeNull();
    });

    it.each([
      ['2026-11-20', 'past', 'in the past'],
      ['2026-11-27', 'tooSoon', 'today'],
      ['2026-11-28', 'notBankingDay', 'not a banking day'],
      ['2026-12-25', 'notBankingDay', 'not a banking day'],
      ['2027-03-26', 'notBankingDay', 'not a banking day'], // Good Friday
    ])('refuses the collection date %s (%s) with a clear message', async (date, problem, words) => {
      const res = await api(owner, 'POST', '/sepa-batches', { collectionDate: date });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toMatchObject({ collectionDate: problem });
      expect(res.json().message).toContain(words);
      expect(await batches()).toEqual([]);
      expect((await getInvoice(j1.id)).collection).toBeNull();
    });

    it('is for admins: a plain member gets 403', async () => {
      const plain = await t.newMemberWithToken('Plain', 'Member');
      const res = await api(plain.token, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(403);
      expect((await api(plain.token, 'GET', '/sepa-batches')).statusCode).toBe(403);
    });
  });

  describe('a batch and its file', () => {
    let batch: any;

    beforeAll(async () => {
      const res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-01' });
      expect(res.statusCode).toBe(201);
      batch = res.json();
    });

    it('collects the invoices of members with a signed mandate, FRST for a first collection', () => {
      expect(batch).toMatchObject({ state: 'created', collectionDate: '2026-12-01', currency: 'EUR' });
      expect(batch.invoices.sort()).toEqual([j1.id, j2.id, a1.id].sort());
      expect(batch.count).toBe(3);
      expect(batch.total).toBe('88.49');
      const byInvoice = Object.fromEntries(batch.debits.map((d: any) => [d.invoice, d]));
      expect(byInvoice[j1.id]).toMatchObject({
        sequenceType: 'FRST',
        amount: '30.00',
        mandateReference: 'MAND-J-1',
        mandateDate: '2026-10-01',
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        debtorName: 'Juergen Gross',
        endToEndId: j1.number,
        state: 'inCollection',
      });
      // No reference stored: the one the mandate preview shows.
      expect(byInvoice[a1.id]).toMatchObject({
        sequenceType: 'FRST',
        mandateReference: `M${String(ana).padStart(8, '0')}`,
        bic: null,
      });
    });

    it('lists the invoices it skipped, each with its reason', () => {
      const reasons = Object.fromEntries(batch.skipped.map((s: any) => [s.invoice, s.reason]));
      for (const [reason, id] of Object.entries(skippedInvoices)) expect(reasons[id]).toBe(reason);
      expect(batch.skipped.every((s: any) => s.message.length > 10)).toBe(true);
      expect(batch.skipped.find((s: any) => s.invoice === skippedInvoices.noMandate)).toMatchObject({
        invoiceNumber: expect.any(String),
        member: expect.any(Number),
        message: 'The member has no SEPA direct debit mandate (payment method)',
      });
      expect(batch.skipped).toHaveLength(4);
    });

    it('puts its invoices in collection, visible on the invoice, and keeps them out of cancelling', async () => {
      const inv = await getInvoice(j1.id);
      expect(inv).toMatchObject({
        state: 'unpaid',
        collection: {
          batch: batch.id,
          state: 'inCollection',
          collectionDate: '2026-12-01',
          returnReason: null,
        },
      });
      expect((await getInvoice(skippedInvoices.noMandate)).collection).toBeNull();
      const cancel = await api(owner, 'POST', `/invoices/${j1.id}/cancel`, {});
      expect(cancel.statusCode).toBe(409);
      expect(cancel.json().data).toEqual({ inCollection: batch.id });
      expect((await getInvoice(j1.id)).state).toBe('unpaid');
    });

    it('a manual payment naming no invoice leaves the invoices in collection alone', async () => {
      const res = await api(owner, 'POST', '/payments', { member: juergen, total: '5' });
      expect(res.statusCode).toBe(201);
      expect(res.json().invoices).toEqual([]);
      expect((await getInvoice(j1.id)).paid).toBe('0.00');
      await api(owner, 'DELETE', `/payments/${res.json().id}`);
    });

    it('writes a pain.008.001.02 file the published schema accepts, totals matching', async () => {
      const { xml, headers } = await file(batch.id);
      expect(headers['content-type']).toMatch(/^application\/xml/);
      expect(headers['content-disposition']).toBe(
        `attachment; filename="sepa-batch-${batch.id}-pain.008.001.02.xml"`,
      );
      expect(xml).toContain('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02"');
      const errors = await validateAgainstXsd(xml, '001.02');
      expect(errors).toEqual([]);
      expect(epcProblems(xml)).toEqual([]);
      // Group header: every debit and their sum; one block per sequence type with its own.
      expect(texts(xml, 'NbOfTxs')[0]).toBe('3');
      expect(texts(xml, 'CtrlSum')[0]).toBe('88.49');
      expect(texts(xml, 'MsgId')).toEqual([batch.messageId]);
      const pmt = blocks(xml);
      expect(pmt).toHaveLength(1);
      expect(texts(pmt[0], 'SeqTp')).toEqual(['FRST']);
      expect(texts(pmt[0], 'CtrlSum')).toEqual(['88.49']);
      expect(texts(pmt[0], 'ReqdColltnDt')).toEqual(['2026-12-01']);
      expect(texts(xml, 'InstdAmt').sort()).toEqual(['12.50', '30.00', '45.99']);
      expect(texts(xml, 'EndToEndId').sort()).toEqual([a1.number, j1.number, j2.number].sort());
      expect(texts(xml, 'MndtId')).toContain('MAND-J-1');
      expect(texts(xml, 'DtOfSgntr')).toContain('2026-10-01');
      expect(xml).toContain('<CdtrSchmeId><Id><PrvtId><Othr><Id>DE98ZZZ09999999999</Id>');
      expect(texts(xml, 'BIC')).toEqual(['BYLADEM1001', 'COBADEFFXXX', 'COBADEFFXXX']);
    });

    it('writes names in the SEPA character set: umlauts spelled out, accents dropped', async () => {
      const { xml } = await file(batch.id);
      expect(texts(xml, 'Nm')).toContain('Werkstatt Muellerstrasse e.V.');
      expect(texts(xml, 'Nm')).toContain('Juergen Gross');
      expect(texts(xml, 'Nm')).toContain('Ana Simic');
      // Nothing outside the SEPA set in any text.
      for (const text of [...xml.matchAll(/>([^<]+)</g)].map((m) => m[1]).filter((x) => x.trim()))
        expect(text).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]+$/);
    });

    it('writes pain.008.001.08: its namespace, BICFI, the same debits and totals', async () => {
      const { xml, headers } = await file(batch.id, '001.08');
      expect(headers['content-disposition']).toContain('pain.008.001.08.xml');
      expect(xml).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.08"');
      const errors = await validateAgainstXsd(xml, '001.08');
      if (errors) expect(errors).toEqual([]);
      expect(epcProblems(xml)).toEqual([]);
      expect(texts(xml, 'BIC')).toEqual([]);
      expect(texts(xml, 'BICFI')).toEqual(['BYLADEM1001', 'COBADEFFXXX', 'COBADEFFXXX']);
      // The debtor without a BIC: NOTPROVIDED, as both versions allow.
      expect(xml).toContain('<DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>');
      expect(texts(xml, 'NbOfTxs')).toEqual(['3', '3']);
      expect(texts(xml, 'CtrlSum')).toEqual(['88.49', '88.49']);
      expect(texts(xml, 'MsgId')).toEqual([batch.messageId]);
      // The elements SEPA Core requires, in the order the schema sets.
      const order = [
        '<GrpHdr><MsgId>',
        '<CreDtTm>',
        '<InitgPty><Nm>',
        '<PmtInf><PmtInfId>',
        '<PmtMtd>DD</PmtMtd>',
        '<SvcLvl><Cd>SEPA</Cd></SvcLvl><LclInstrm><Cd>CORE</Cd></LclInstrm><SeqTp>FRST</SeqTp>',
        '<ReqdColltnDt>2026-12-01</ReqdColltnDt>',
        '<Cdtr><Nm>',
        '<CdtrAcct><Id><IBAN>DE02120300000000202051</IBAN>',
        '<CdtrAgt><FinInstnId><BICFI>BYLADEM1001</BICFI>',
        '<ChrgBr>SLEV</ChrgBr>',
        '<CdtrSchmeId>',
        '<DrctDbtTxInf><PmtId><EndToEndId>',
        '<InstdAmt Ccy="EUR">',
        '<MndtRltdInf><MndtId>',
        '<DbtrAgt>',
        '<Dbtr><Nm>',
        '<DbtrAcct><Id><IBAN>',
        '<RmtInf><Ustrd>',
      ];
      const at = order.map((part) => xml.indexOf(part));
      expect(at.every((i) => i >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(texts(xml, 'CreDtTm')[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    });

    it.each(schemas.map((s) => s.fileName))(
      'the file of the version of %s is valid against it',
      async (name) => {
        const version = /^pain\.008\.(\d{3}\.\d{2})\.xsd$/.exec(name)?.[1];
        expect(version).toBeDefined();
        const { xml } = await file(batch.id, version);
        expect(await validateAgainstXsd(xml, version!)).toEqual([]);
      },
    );

    it('answers 400 for a version it does not write', async () => {
      const res = await api(owner, 'GET', `/sepa-batches/${batch.id}/xml?version=001.01`);
      expect(res.statusCode).toBe(400);
    });

    it('does not put an invoice in collection into another batch', async () => {
      const a2 = await invoice(ana, '20');
      const res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-02' });
      expect(res.statusCode).toBe(201);
      const second = res.json();
      expect(second.invoices).toEqual([a2.id]);
      // Ana's mandate has a debit under way: this one is a recurring collection.
      expect(second.debits[0].sequenceType).toBe('RCUR');
      expect(second.messageId).not.toBe(batch.messageId);
      const inCollection = second.skipped
        .filter((s: any) => s.reason === 'inCollection')
        .map((s: any) => s.invoice);
      expect(inCollection.sort()).toEqual([j1.id, j2.id, a1.id].sort());
      const { xml } = await file(second.id);
      expect(await validateAgainstXsd(xml, '001.02')).toEqual([]);
      expect(texts(blocks(xml)[0], 'SeqTp')).toEqual(['RCUR']);
      // Nothing left: 422, no batch.
      const none = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-02' });
      expect(none.statusCode).toBe(422);
      expect(none.json().data.noInvoices).toBe(true);
      expect(await batches()).toHaveLength(2);
      // Discarded: its invoice leaves collection.
      expect((await api(owner, 'DELETE', `/sepa-batches/${second.id}`)).statusCode).toBe(204);
      expect((await getInvoice(a2.id)).collection).toBeNull();
      expect(await batches()).toHaveLength(1);
    });

    it('records a returned debit: the invoice is open again and the return visible', async () => {
      const res = await api(owner, 'POST', `/sepa-batches/${batch.id}/returns`, {
        invoice: j1.id,
        reason: 'AM04',
        notes: 'Insufficient funds',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().returned).toBe(1);
      expect(res.json().debits.find((d: any) => d.invoice === j1.id)).toMatchObject({
        state: 'returned',
        returnReason: 'AM04',
        returnNotes: 'Insufficient funds',
        returnedDate: '2026-11-27',
      });
      expect(await getInvoice(j1.id)).toMatchObject({
        state: 'unpaid',
        collection: { batch: batch.id, state: 'returned', returnReason: 'AM04' },
      });
      // Open again: it can be cancelled now.
      const again = await api(owner, 'POST', `/sepa-batches/${batch.id}/returns`, {
        invoice: j1.id,
        reason: 'AM04',
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().data.alreadyReturned).toBe(true);
      const bad = await api(owner, 'POST', `/sepa-batches/${batch.id}/returns`, {
        invoice: j2.id,
        reason: 'XX99',
      });
      expect(bad.statusCode).toBe(400);
      const stranger = await api(owner, 'POST', `/sepa-batches/${batch.id}/returns`, {
        invoice: skippedInvoices.noMandate,
        reason: 'MD01',
      });
      expect(stranger.statusCode).toBe(422);
      expect(stranger.json().data.invoice).toBe('notInBatch');
      // The file sent stays as it was.
      expect(texts((await file(batch.id)).xml, 'NbOfTxs')[0]).toBe('3');
    });

    it('records the batch as collected: payments settle the invoices still in collection', async () => {
      const res = await api(owner, 'POST', `/sepa-batches/${batch.id}/collected`, {});
      expect(res.statusCode).toBe(200);
      const collected = res.json();
      expect(collected).toMatchObject({ state: 'collected', collectedDate: '2026-12-01' });
      const j2debit = collected.debits.find((d: any) => d.invoice === j2.id);
      expect(j2debit.state).toBe('collected');
      expect(await getInvoice(j2.id)).toMatchObject({
        state: 'paid',
        paid: '12.50',
        collection: { state: 'collected' },
        payments: [{ payment: j2debit.payment, amount: '12.50' }],
      });
      expect((await api(owner, 'GET', `/payments/${j2debit.payment}`)).json()).toMatchObject({
        member: juergen,
        total: '12.50',
        method: 'sepa',
        date: '2026-12-01',
        state: 'completed',
      });
      expect((await getInvoice(a1.id)).state).toBe('paid');
      // The debit returned before stays an open invoice.
      expect((await getInvoice(j1.id)).state).toBe('unpaid');
      const twice = await api(owner, 'POST', `/sepa-batches/${batch.id}/collected`, {});
      expect(twice.statusCode).toBe(409);
      expect((await api(owner, 'DELETE', `/sepa-batches/${batch.id}`)).statusCode).toBe(409);
    });

    it('a debit returned after the collection reopens its invoice and removes its payment', async () => {
      const before = (await api(owner, 'GET', `/sepa-batches/${batch.id}`)).json();
      const payment = before.debits.find((d: any) => d.invoice === a1.id).payment;
      const res = await api(owner, 'POST', `/sepa-batches/${batch.id}/returns`, {
        invoice: a1.id,
        reason: 'MD06',
      });
      expect(res.statusCode).toBe(200);
      expect(await getInvoice(a1.id)).toMatchObject({
        state: 'unpaid',
        paid: '0.00',
        collection: { state: 'returned', returnReason: 'MD06' },
      });
      expect((await api(owner, 'GET', `/payments/${payment}`)).statusCode).toBe(404);
    });

    it('collects a returned invoice again in a later batch: FRST again only when no collection of the mandate stands', async () => {
      const res = await api(owner, 'POST', '/sepa-batches', { collectionDate: '2026-12-03' });
      expect(res.statusCode).toBe(201);
      const third = res.json();
      const seq = Object.fromEntries(third.debits.map((d: any) => [d.invoice, d.sequenceType]));
      // Jürgen's mandate was collected (j2): recurring. Ana's only debits came back: first again.
      expect(seq[j1.id]).toBe('RCUR');
      expect(seq[a1.id]).toBe('FRST');
      const { xml } = await file(third.id);
      expect(await validateAgainstXsd(xml, '001.02')).toEqual([]);
      const pmt = blocks(xml);
      expect(pmt.map((b) => texts(b, 'SeqTp')[0])).toEqual(['FRST', 'RCUR']);
      // Each block's count and sum cover its own debits; the header covers all.
      const sums = pmt.map((b) => texts(b, 'InstdAmt').reduce((s, a) => s + Math.round(Number(a) * 100), 0));
      expect(pmt.map((b, i) => [texts(b, 'NbOfTxs')[0], texts(b, 'CtrlSum')[0], sums[i]])).toEqual(
        pmt.map((b, i) => [String(texts(b, 'InstdAmt').length), (sums[i] / 100).toFixed(2), sums[i]]),
      );
      expect(texts(xml, 'CtrlSum')[0]).toBe(third.total);
      expect(Number(texts(xml, 'NbOfTxs')[0])).toBe(third.count);
    });

    it('lists and reads batches, 404 for another account’s', async () => {
      const list = await api(owner, 'GET', '/sepa-batches?limit=1');
      expect(list.statusCode).toBe(200);
      expect(list.headers['x-total-count']).toBe('2');
      expect(list.json()).toHaveLength(1);
      expect(list.headers.link).toContain('offset=1');
      const other = await t.newAccount('Other space', 'other@test.example');
      expect((await api(other.token, 'GET', `/sepa-batches/${batch.id}`)).statusCode).toBe(404);
      expect((await api(other.token, 'GET', `/sepa-batches/${batch.id}/xml`)).statusCode).toBe(404);
      expect((await api(other.token, 'GET', '/sepa-batches')).json()).toEqual([]);
    });
  });
});
