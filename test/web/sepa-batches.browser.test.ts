import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { nextBankingDay } from '../../hub/src/billing/sepa-xml.js';
import { consoleTestHooks, openConsole, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';
import { repoRoot } from '../support/processes.js';

const shots = join(repoRoot, 'docs/screenshots');

describe.runIf(browserTestsEnabled())('SEPA batches on the admin billing page in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let admin: { context: BrowserContext; page: Page };
  const invoices: Record<string, { id: number; number: string }> = {};
  // Two banking days ahead: after today in any time zone.
  const collectionDate = nextBankingDay(nextBankingDay(new Date().toISOString().slice(0, 10)));

  beforeAll(async () => {
    const started = await startConsoleHub('sepa-ledger-5521');
    hub = started.hub;
    const space = started.owner.space as number;
    const settings = (await hub.api('GET', `/spaces/${space}/billing-settings`)).body;
    expect(
      (
        await hub.api('PUT', `/spaces/${space}/billing-settings`, {
          lockVersion: settings.lockVersion,
          enableSepa: true,
          sepaCreditorId: 'DE98ZZZ09999999999',
          sepaIban: 'DE02120300000000202051',
          sepaAccountOwnerName: 'Werkstatt Müllerstraße e.V.',
        })
      ).status,
    ).toBe(200);
    const member = async (firstName: string, lastName: string) =>
      (await hub.api('POST', '/members', { firstName, lastName })).body.id as number;
    const invoice = async (memberId: number, price: string) => {
      expect(
        (await hub.api('POST', '/charges', { member: memberId, price, description: 'Laser time' })).status,
      ).toBe(201);
      return (await hub.api('POST', '/invoices', { member: memberId })).body as {
        id: number;
        number: string;
      };
    };
    const juergen = await member('Jürgen', 'Groß');
    expect(
      (
        await hub.api('PUT', `/members/${juergen}/payment-method`, {
          type: 'sepa',
          iban: 'DE89370400440532013000',
          accountOwnerName: 'Jürgen Groß',
          mandateDate: '2026-01-15',
        })
      ).status,
    ).toBe(200);
    invoices.first = await invoice(juergen, '30.00');
    invoices.second = await invoice(juergen, '12.50');
    invoices.cash = await invoice(await member('Bo', 'Cash'), '8.00');
    ({ browser, admin } = await openConsole(started, '/admin/billing'));
  }, 120_000);

  consoleTestHooks('sepa-batches', () => ({ browser, pages: admin?.page }));

  it('makes a batch, downloads its file, records a return and the collection', async () => {
    const { page } = admin;
    const sepa = page.getByRole('region', { name: 'SEPA batches' });
    await expect
      .poll(() => sepa.getByRole('table', { name: 'SEPA batches' }).textContent())
      .toContain('No SEPA batch yet.');

    // A Saturday: refused in words, nothing made.
    const saturday = new Date(`${collectionDate}T12:00:00Z`);
    saturday.setUTCDate(saturday.getUTCDate() + ((6 - saturday.getUTCDay() + 7) % 7 || 7));
    await sepa.getByLabel('Collection date').fill(saturday.toISOString().slice(0, 10));
    await sepa.getByRole('button', { name: 'Make a SEPA batch' }).click();
    await expect.poll(() => sepa.getByRole('alert').textContent()).toContain('is not a banking day');

    await sepa.getByLabel('Collection date').fill(collectionDate);
    await sepa.getByRole('button', { name: 'Make a SEPA batch' }).click();
    const made = sepa.getByTestId('sepa-made');
    await expect.poll(() => made.textContent()).toMatch(/^Batch \d+: 2 debits, 42\.50 EUR/);
    const batch = Number(/^Batch (\d+)/.exec((await made.textContent()) ?? '')![1]);
    expect(await made.textContent()).toContain(
      `Invoice ${invoices.cash.number}: The member has no SEPA direct debit mandate`,
    );
    expect(await sepa.getByRole('alert').count()).toBe(0);

    // The invoices list shows the invoices in collection.
    const invoiceRows = page.getByRole('table', { name: 'Invoices' });
    await expect.poll(() => invoiceRows.textContent()).toContain(`unpaid, in SEPA batch ${batch}`);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      sepa.getByRole('link', { name: `Download batch ${batch} as pain.008.001.02` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`sepa-batch-${batch}-pain.008.001.02.xml`);
    const xml = readFileSync((await download.path())!, 'utf8');
    expect(xml).toContain('<NbOfTxs>2</NbOfTxs><CtrlSum>42.50</CtrlSum>');
    expect(xml).toContain('<Dbtr><Nm>Juergen Gross</Nm></Dbtr>');
    expect(xml).toContain(`<ReqdColltnDt>${collectionDate}</ReqdColltnDt>`);

    const debits = sepa.getByRole('table', { name: `Debits of batch ${batch}` });
    await expect.poll(() => debits.textContent()).toContain('in collection');
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'admin-sepa-batches.png'), fullPage: true });

    // The bank returned the first debit: insufficient funds.
    await sepa.getByLabel(`Return reason for invoice ${invoices.first.number}`).selectOption('AM04');
    await sepa.getByRole('button', { name: `Record return of invoice ${invoices.first.number}` }).click();
    await expect.poll(() => debits.textContent()).toContain('returned (AM04)');
    const batchRow = sepa.getByRole('table', { name: 'SEPA batches' }).getByRole('row').nth(1);
    await expect.poll(() => batchRow.getByRole('cell').nth(5).textContent()).toBe('1');

    // The bank credited the rest.
    await sepa.getByRole('button', { name: `Record batch ${batch} as collected` }).click();
    await expect
      .poll(() => batchRow.getByRole('cell').nth(2).textContent())
      .toBe(`collected ${collectionDate}`);
    const invoiceStates = async () =>
      Object.fromEntries(
        ((await hub.api('GET', '/invoices')).body as { id: number; state: string }[]).map((i) => [
          i.id,
          i.state,
        ]),
      );
    expect(await invoiceStates()).toMatchObject({
      [invoices.first.id]: 'unpaid',
      [invoices.second.id]: 'paid',
      [invoices.cash.id]: 'unpaid',
    });
    await expect.poll(() => invoiceRows.textContent()).not.toContain('in SEPA batch');
    const payments = (await hub.api('GET', '/payments')).body as { method: string; total: string }[];
    expect(payments.map((p) => [p.method, p.total])).toEqual([['sepa', '12.50']]);
  });
});
