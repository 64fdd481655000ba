import { PNG } from 'pngjs';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePdf } from '../../hub/src/billing/invoice-pdf.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The hub's clock, fixed: invoices are dated by it. */
const clock = { current: new Date('2026-03-14T10:00:00.000Z'), now: () => clock.current };

/** The text of a PDF, all pages. */
async function pdfText(bytes: Buffer | Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/**
 * The markers of a baseline JPEG of this size (start, a JFIF segment, the frame header, end): what
 * the hub reads of a JPEG before it stores it (the PDF embeds a JPEG's bytes as they are).
 */
function jpegHeader(width: number, height: number): Buffer {
  const jfif = [
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00,
  ];
  const frame = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 255, width >> 8, width & 255, 0x03];
  const components = [0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  return Buffer.from([0xff, 0xd8, ...jfif, ...frame, ...components, 0xff, 0xd9]);
}

/** A small PNG: a red square with a white border. */
function logoPng(size = 40): Buffer {
  const png = new PNG({ width: size, height: size });
  for (let i = 0; i < size * size; i++) {
    const edge = i % size < 2 || i < size * 2;
    png.data.set(edge ? [255, 255, 255, 255] : [200, 20, 20, 255], i * 4);
  }
  return PNG.sync.write(png);
}

describeEachDialect('invoice PDFs', (dialect) => {
  let t: TestHub;
  let owner: string;
  let spaceId: number;
  let anna: { id: number; token: string };
  let bernd: { id: number; token: string };
  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const charge = async (member: number, price: string, description: string, taxPercent: string) => {
    const res = await api(owner, 'POST', '/charges', {
      member,
      price,
      description,
      taxPercent,
      dateTime: '2026-03-02T15:00:00.000Z',
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  const invoice = async (member: number) => {
    const res = await api(owner, 'POST', '/invoices', {
      member,
      text: 'Thank you for making things with us.',
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; number: string; lockVersion: number };
  };
  const pdfOf = (token: string, id: number) => api(token, 'GET', `/invoices/${id}/pdf`);

  beforeAll(async () => {
    clock.current = new Date('2026-03-14T10:00:00.000Z');
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    spaceId = t.owner.spaceId;
    await t.hub.jobs.stop();
    const settings = (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json();
    const put = await api(owner, 'PUT', `/spaces/${spaceId}/billing-settings`, {
      lockVersion: settings.lockVersion,
      invoiceNumberPrefix: '2026-00',
      nextInvoiceNumber: 12,
      invoiceName: 'Werkstatt Süd e.V.',
      invoiceAddress: 'Hauptstraße 5\n8010 Graz',
      invoiceTaxId: 'ATU12345678',
      invoiceHeader: 'Your usage of the workshop',
      invoiceFooter: 'Bank: Steiermärkische Sparkasse, IBAN AT61 1904 3002 3457 3201',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ invoiceName: 'Werkstatt Süd e.V.', invoiceTaxId: 'ATU12345678' });

    const a = await t.newMemberWithToken('Anna', 'Schmidt');
    anna = { id: a.id, token: a.token };
    const b = await t.newMemberWithToken('Bernd', 'Huber');
    bernd = { id: b.id, token: b.token };
    const annaRecord = (await api(owner, 'GET', `/members/${anna.id}`)).json();
    const changed = await api(owner, 'PUT', `/members/${anna.id}`, {
      lockVersion: annaRecord.lockVersion,
      hasBillingAddress: true,
      billingFirstName: 'Anna',
      billingLastName: 'Schmidt',
      billingCompany: 'Schmidt Möbelbau',
      billingAddress: 'Lendplatz 1',
      billingZip: '8020',
      billingCity: 'Graz',
      billingCountryCode: 'AT',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const berndRecord = (await api(owner, 'GET', `/members/${bernd.id}`)).json();
    await api(owner, 'PUT', `/members/${bernd.id}`, { lockVersion: berndRecord.lockVersion, language: 'de' });
  });
  afterAll(async () => t?.close());

  it('prints the space, the recipient, number, dates, lines, taxes and totals', async () => {
    await charge(anna.id, '120.00', 'Laser cutter, 2 h', '20');
    await charge(anna.id, '10.70', 'Plywood 4 mm', '7');
    const inv = await invoice(anna.id);
    expect(inv.number).toBe('2026-0012');

    const res = await pdfOf(anna.token, inv.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="invoice-2026-0012.pdf"');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const text = await pdfText(res.rawPayload);
    for (const expected of [
      'Invoice',
      'Invoice number',
      '2026-0012',
      'Invoice date',
      'Mar 14, 2026',
      'Due date',
      'Mar 28, 2026', // 14 days, the default deadline
      'Werkstatt Süd e.V.',
      'Hauptstraße 5',
      '8010 Graz',
      'Tax ID: ATU12345678',
      'Schmidt Möbelbau',
      'Anna Schmidt',
      'Lendplatz 1',
      'Your usage of the workshop',
      'Laser cutter, 2 h',
      'Plywood 4 mm',
      'Mar 2, 2026',
      '€100.00', // 120.00 gross at 20 %
      '€120.00',
      '€10.00', // 10.70 at 7 %
      '€10.70',
      'Total excluding tax',
      '€110.00',
      'Tax 20 %',
      '€20.00',
      'Tax 7 %',
      '€0.70',
      'Total',
      '€130.70',
      'Thank you for making things with us.',
      'IBAN AT61 1904 3002 3457 3201',
    ])
      expect(text).toContain(expected);
    expect(text).not.toContain('Cancelled');
  });

  it('answers the stored bytes on every later request, to the member and the admins alike', async () => {
    await charge(anna.id, '5.00', 'Filament', '20');
    const inv = await invoice(anna.id);
    const first = await pdfOf(anna.token, inv.id);
    expect(first.statusCode).toBe(200);
    // Settings changed after the first print do not change the printed invoice.
    const settings = (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json();
    await api(owner, 'PUT', `/spaces/${spaceId}/billing-settings`, {
      lockVersion: settings.lockVersion,
      invoiceAddress: 'Neue Gasse 9\n8010 Graz',
    });
    clock.current = new Date('2026-03-15T08:00:00.000Z');
    const again = await pdfOf(owner, inv.id);
    expect(again.statusCode).toBe(200);
    expect(Buffer.compare(again.rawPayload, first.rawPayload)).toBe(0);
    expect(Buffer.compare(await invoicePdf(t.hub.ctx.db, inv.id), first.rawPayload)).toBe(0);
    expect(await pdfText(again.rawPayload)).toContain('Hauptstraße 5');
    await api(owner, 'PUT', `/spaces/${spaceId}/billing-settings`, {
      lockVersion: settings.lockVersion + 1,
      invoiceAddress: 'Hauptstraße 5\n8010 Graz',
    });
  });

  it('prints German words, dates and amounts for a member whose language is German', async () => {
    await charge(bernd.id, '1234.50', 'Fräse, 3 Stunden', '20');
    const inv = await invoice(bernd.id);
    const res = await pdfOf(bernd.token, inv.id);
    expect(res.statusCode).toBe(200);
    const text = await pdfText(res.rawPayload);
    for (const expected of [
      'Rechnung',
      'Rechnungsnummer',
      'Rechnungsdatum',
      'Fällig am',
      'Fräse, 3 Stunden',
      'Summe netto',
      'USt. 20 %',
      'Gesamtbetrag',
      '1.234,50 €',
      '1.028,75 €',
      '205,75 €',
      'USt-IdNr.: ATU12345678',
    ])
      expect(text).toContain(expected);
    expect(text).toContain('15.03.2026'); // the invoice date, as German dates read
    expect(text).not.toContain('Invoice number');
  });

  it('shows an invoice only to its member and the admins: another member gets 404', async () => {
    await charge(anna.id, '3.00', 'Sandpaper', '20');
    const inv = await invoice(anna.id);
    expect((await pdfOf(bernd.token, inv.id)).statusCode).toBe(404);
    expect((await pdfOf(owner, inv.id)).statusCode).toBe(200);
    expect((await pdfOf(anna.token, inv.id)).statusCode).toBe(200);
    expect((await pdfOf(owner, 999999)).statusCode).toBe(404);
    const other = await t.newAccount('Other space', 'owner@other.example');
    expect((await pdfOf(other.token, inv.id)).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/v1/invoices/${inv.id}/pdf` })).statusCode).toBe(401);
  });

  it('prints a cancelled invoice with its lines, marked cancelled, the same bytes on every print', async () => {
    // Cancelled before anyone printed it: its lines were kept when it was cancelled.
    await charge(anna.id, '42.00', 'Workshop: soldering', '20');
    const inv = await invoice(anna.id);
    const cancel = await api(owner, 'POST', `/invoices/${inv.id}/cancel`, { lockVersion: inv.lockVersion });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const res = await pdfOf(anna.token, inv.id);
    expect(res.statusCode).toBe(200);
    const text = await pdfText(res.rawPayload);
    expect(text).toContain('Cancelled');
    expect(text).toContain('This invoice has been cancelled');
    expect(text).toContain('Workshop: soldering');
    expect(text).toContain('€42.00');
    const again = await pdfOf(owner, inv.id);
    expect(Buffer.compare(again.rawPayload, res.rawPayload)).toBe(0);

    // Printed, then cancelled: the printed one is kept, the cancelled print marks it.
    const printed = (await api(owner, 'GET', '/invoices?limit=1000'))
      .json()
      .find((i: { state: string; member: number }) => i.state === 'unpaid' && i.member === bernd.id);
    const before = await pdfOf(owner, printed.id);
    expect(await pdfText(before.rawPayload)).not.toContain('Storniert');
    const current = (await api(owner, 'GET', `/invoices/${printed.id}`)).json();
    await api(owner, 'POST', `/invoices/${printed.id}/cancel`, { lockVersion: current.lockVersion });
    const after = await pdfOf(bernd.token, printed.id);
    const afterText = await pdfText(after.rawPayload);
    expect(afterText).toContain('Storniert');
    expect(afterText).toContain('Fräse, 3 Stunden');
    expect(afterText).toContain('1.234,50 €');
  });

  describe('the logo', () => {
    const putLogo = (body: Buffer, type = 'image/png', token = owner) =>
      t.call(token, {
        method: 'PUT',
        url: `/api/v1/spaces/${spaceId}/billing-settings/logo`,
        headers: { 'content-type': type },
        payload: body,
      });

    it('is uploaded as a PNG, read back, printed on new invoices, and removed', async () => {
      const png = logoPng();
      const res = await putLogo(png);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().invoiceLogoType).toBe('image/png');
      const back = await api(owner, 'GET', `/spaces/${spaceId}/billing-settings/logo`);
      expect(back.statusCode).toBe(200);
      expect(back.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(back.rawPayload, png)).toBe(0);

      await charge(anna.id, '8.00', 'Acrylic', '20');
      const inv = await invoice(anna.id);
      const pdf = (await pdfOf(anna.token, inv.id)).rawPayload;
      // The image is in the PDF: an image XObject of the logo's size.
      expect(pdf.toString('latin1')).toMatch(/\/Subtype \/Image[\s\S]*\/Width 40/);

      const removed = await api(owner, 'DELETE', `/spaces/${spaceId}/billing-settings/logo`);
      expect(removed.statusCode).toBe(204);
      expect(
        (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json().invoiceLogoType,
      ).toBeNull();
      expect((await api(owner, 'GET', `/spaces/${spaceId}/billing-settings/logo`)).statusCode).toBe(404);
      // Removing it again changes nothing.
      const settings = (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json();
      expect((await api(owner, 'DELETE', `/spaces/${spaceId}/billing-settings/logo`)).statusCode).toBe(204);
      expect((await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json().lockVersion).toBe(
        settings.lockVersion,
      );
    });

    it('takes a JPEG by its bytes, whatever the content type said', async () => {
      const res = await putLogo(jpegHeader(300, 120), 'application/octet-stream');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().invoiceLogoType).toBe('image/jpeg');
      const tooWide = await putLogo(jpegHeader(9000, 120), 'image/jpeg');
      expect(tooWide.statusCode).toBe(422);
      expect(tooWide.json().data).toMatchObject({ logo: 'tooManyPixels' });
      expect((await api(owner, 'DELETE', `/spaces/${spaceId}/billing-settings/logo`)).statusCode).toBe(204);
    });

    it('refuses what is not a PNG or JPEG, a broken image and one too large, with a clear error', async () => {
      const before = (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json();
      const notImage = await putLogo(Buffer.from('GIF89a this is not a png'), 'image/png');
      expect(notImage.statusCode).toBe(422);
      expect(notImage.json().message).toBe('The logo must be a PNG or JPEG image');
      expect(notImage.json().data).toMatchObject({ logo: 'notAnImage' });

      const broken = await putLogo(logoPng().subarray(0, 60));
      expect(broken.statusCode).toBe(422);
      expect(broken.json().message).toMatch(/^The logo is not a readable PNG image/);

      // A PNG whose header claims 20,000 x 20,000 pixels: refused before anything decodes it.
      const huge = logoPng();
      huge.writeUInt32BE(20_000, 16);
      huge.writeUInt32BE(20_000, 20);
      const tooWide = await putLogo(huge);
      expect(tooWide.statusCode).toBe(422);
      expect(tooWide.json().message).toBe(
        'The logo is 20000 x 20000 pixels; at most 4000 on either side are allowed',
      );

      const big = await putLogo(Buffer.concat([logoPng(), Buffer.alloc(600 * 1024)]));
      expect(big.statusCode).toBe(422);
      expect(big.json().message).toMatch(/^The logo is 6\d\d KB; at most 512 KB are allowed/);

      const json = await api(owner, 'PUT', `/spaces/${spaceId}/billing-settings/logo`, { logo: 'x' });
      expect(json.statusCode).toBe(415);
      const text = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/spaces/${spaceId}/billing-settings/logo`,
        headers: { 'content-type': 'text/plain' },
        payload: 'logo',
      });
      expect(text.statusCode).toBe(415);

      const member = await putLogo(logoPng(), 'image/png', anna.token);
      expect(member.statusCode).toBe(403);
      // Nothing changed.
      const after = (await api(owner, 'GET', `/spaces/${spaceId}/billing-settings`)).json();
      expect(after.lockVersion).toBe(before.lockVersion);
      expect(after.invoiceLogoType).toBeNull();
    });
  });
});
