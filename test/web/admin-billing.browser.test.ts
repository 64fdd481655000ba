import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../hub/webhooks-helpers.js';
import { consoleTestHooks, openConsole, parseCsv, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';
import { hubCli, repoRoot, runProcess } from '../support/processes.js';

const shots = join(repoRoot, 'docs/screenshots');

const cents = (amounts: string[]) => amounts.reduce((a, s) => a + Math.round(Number(s) * 100), 0);

describe.runIf(browserTestsEnabled())('admin billing and webhooks in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  let receiver: Receiver;
  let receiverHealthy = false;
  let ownerEmail = '';
  const ids = { ada: 0, bo: 0 };
  const password = 'ledger-walnut-4417';

  async function shot(page: Page, name: string) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }
  /** Searches members on the server, then picks the one found. */
  async function pickMember(page: Page, search: string, name: string) {
    await page.getByLabel('Find a member').fill(search);
    const select = page.getByLabel('Member', { exact: true });
    await expect.poll(() => select.locator('option').allTextContents()).toContain(name);
    await select.selectOption({ label: name });
  }
  const adminNav = (page: Page) => page.getByRole('navigation', { name: 'Admin' });

  beforeAll(async () => {
    // Webhooks may go to loopback here: the test's own receiver on 127.0.0.1.
    const started = await startConsoleHub(password, { HUB_WEBHOOK_ALLOW_INSECURE: '1' });
    ({ hub, web } = started);
    const me = started.owner;
    const member = async (firstName: string, lastName: string) =>
      (
        await hub.api('POST', '/members', {
          firstName,
          lastName,
          emailAddress: `${firstName}@billing-test.example`,
        })
      ).body.id as number;
    ids.ada = await member('Ada', 'Lovelace');
    ids.bo = await member('Bo', 'Plain');
    const charge = async (memberId: number, dateTime: string, price: string, description: string) =>
      expect(
        (await hub.api('POST', '/charges', { member: memberId, dateTime, price, description })).status,
      ).toBe(201);
    // Ada: 14 laser charges in November (more than a page of 10), one in October, one in December.
    for (let day = 1; day <= 14; day++) {
      await charge(
        ids.ada,
        `2026-11-${String(day).padStart(2, '0')}T10:00:00.000Z`,
        `${day}.25`,
        `Laser, ${day} min`,
      );
    }
    await charge(ids.ada, '2026-10-31T10:00:00.000Z', '99.00', 'Laser in October');
    await charge(ids.ada, '2026-12-01T10:00:00.000Z', '77.00', 'Laser in December');
    // Bo: two charges in November, invoiced, and half of the invoice paid.
    await charge(ids.bo, '2026-11-03T09:00:00.000Z', '20.00', 'Membership, "Maker" plan');
    await charge(ids.bo, '2026-11-04T09:00:00.000Z', '1.00', '=1+2');
    const invoice = (await hub.api('POST', '/invoices', { member: ids.bo, date: '2026-11-20' })).body;
    expect(invoice.total).toBe('21.00');
    expect(
      (
        await hub.api('POST', '/payments', {
          member: ids.bo,
          total: '10.50',
          date: '2026-11-21',
          invoices: [invoice.id],
        })
      ).status,
    ).toBe(201);
    expect(me.privileges).toContain('owner');
    ownerEmail = me.emailAddress;
    receiver = await startReceiver(() =>
      receiverHealthy ? { status: 204 } : { status: 500, body: 'not today' },
    );
    ({ browser, admin } = await openConsole(started, '/admin/billing'));
  }, 120_000);

  consoleTestHooks('admin-billing', () => ({ browser, pages: admin?.page }));
  afterAll(() => receiver?.close());

  it('billing: filters by member and dates, totals of everything filtered, CSV of every filtered row', async () => {
    const { page } = admin;
    await expect.poll(() => page.getByRole('heading', { name: 'Billing', level: 1 }).isVisible()).toBe(true);
    const charges = page.getByRole('region', { name: 'Charges' });
    const chargeTotals = page.getByTestId('charges-totals');
    // Unfiltered: all 18 charges.
    await expect.poll(() => chargeTotals.textContent()).toMatch(/^18 charges: /);

    await page.getByLabel('From').fill('2026-11-01');
    await page.getByLabel('Until').fill('2026-11-30');
    await pickMember(page, 'Lovelace', 'Ada Lovelace');
    // 1.25 + 2.25 + ... + 14.25 = 105 + 14 * 0.25 = 108.50, none on an invoice.
    await expect
      .poll(() => chargeTotals.textContent())
      .toBe('14 charges: 108.50 (invoiced 0.00, not invoiced 108.50)');
    const rows = charges.getByRole('table', { name: 'Charges' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(11); // the header and one page of 10
    expect(await charges.getByRole('navigation', { name: 'Pages of charges' }).textContent()).toContain(
      '1–10 of 14',
    );
    expect(await rows.nth(1).textContent()).toContain('Laser, 14 min');
    await expect
      .poll(() => page.getByTestId('invoices-totals').textContent())
      .toBe('0 invoices: 0.00 (paid 0.00, open 0.00)');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      charges.getByRole('button', { name: 'Export charges as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('charges-2026-11-01_2026-11-30.csv');
    const csv = parseCsv(readFileSync((await download.path())!, 'utf8'));
    expect(csv[0]).toEqual([
      'id',
      'dateTime',
      'member',
      'memberName',
      'description',
      'price',
      'taxPercent',
      'invoice',
    ]);
    const body = csv.slice(1);
    expect(body).toHaveLength(14);
    const api = (
      await hub.api(
        'GET',
        `/charges?member=${ids.ada}&from=2026-11-01&until=2026-11-30&limit=1000&order=desc`,
      )
    ).body as any[];
    expect(body.map((r) => Number(r[0]))).toEqual(api.map((c) => c.id));
    expect(body.map((r) => r[5])).toEqual(api.map((c) => c.price));
    expect(body.every((r) => r[3] === 'Ada Lovelace' && r[1].startsWith('2026-11-'))).toBe(true);
    expect(cents(body.map((r) => r[5]))).toBe(10850);

    // Bo's charges: the one on the invoice, the quotes kept, and a formula-like text defused.
    await pickMember(page, 'Plain', 'Bo Plain');
    await charges.getByLabel('Invoiced').selectOption({ label: 'On an invoice' });
    await expect
      .poll(() => chargeTotals.textContent())
      .toBe('2 charges: 21.00 (invoiced 21.00, not invoiced 0.00)');
    await expect
      .poll(() => page.getByTestId('invoices-totals').textContent())
      .toBe('1 invoice: 21.00 (paid 10.50, open 10.50)');
    await expect
      .poll(() => page.getByTestId('payments-totals').textContent())
      .toBe('1 payment: 10.50 (completed 10.50, pending 0.00)');
    const invoices = page.getByRole('region', { name: 'Invoices' });
    await invoices.getByLabel('State').selectOption({ label: 'Paid' });
    await expect
      .poll(() => page.getByTestId('invoices-totals').textContent())
      .toBe('0 invoices: 0.00 (paid 0.00, open 0.00)');
    await invoices.getByLabel('State').selectOption({ label: 'Unpaid' });
    await expect.poll(() => page.getByTestId('invoices-totals').textContent()).toMatch(/^1 invoice: /);
    const [boDownload] = await Promise.all([
      page.waitForEvent('download'),
      charges.getByRole('button', { name: 'Export charges as CSV' }).click(),
    ]);
    const boRows = parseCsv(readFileSync((await boDownload.path())!, 'utf8')).slice(1);
    expect(boRows.map((r) => r[4]).sort()).toEqual(["'=1+2", 'Membership, "Maker" plan']);
    expect(boRows.map((r) => r[5]).sort()).toEqual(['1.00', '20.00']);

    // A range that ends before it starts is the API's 400, shown on the page.
    await page.getByLabel('Until').fill('2026-10-01');
    await expect
      .poll(() => charges.getByRole('alert').textContent())
      .toContain('Until: must not lie before from.');
    await page.getByLabel('Until').fill('2026-11-30');
    await expect.poll(() => charges.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Member', { exact: true }).selectOption({ label: 'All members' });
    await charges.getByLabel('Invoiced').selectOption({ label: 'All charges' });
    await invoices.getByLabel('State').selectOption({ label: 'All invoices' });
    await expect.poll(() => chargeTotals.textContent()).toMatch(/^16 charges: 129\.50 /);
    await page.getByLabel('Find a member').fill('');
    await page.getByRole('heading', { name: 'Billing', level: 1 }).click();
  }, 90_000);

  it('webhooks: a failing delivery shows its status and code, retry after the fix delivers it, a test event arrives', async () => {
    const { page } = admin;
    await adminNav(page).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Webhooks', level: 1 }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Receiver URL').fill(receiver.url);
    await form.getByLabel('Label').fill('Accounting sync');
    await form.getByLabel('Members').check();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect
      .poll(() =>
        page
          .getByLabel('Signing secret (shown only now; the receiver verifies signatures with it)')
          .inputValue(),
      )
      .toMatch(/^whsec_/);
    await expect
      .poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent())
      .toContain('Accounting sync');

    // A new member: the receiver answers 500, the delivery shows failing with the code.
    const created = await hub.api('POST', '/members', { firstName: 'Cy', lastName: 'Newton' });
    expect(created.status).toBe(201);
    const cy = created.body;
    const deliveries = page.getByRole('table', { name: 'Deliveries of Accounting sync' });
    const memberRow = deliveries.getByRole('row').filter({ hasText: 'member_created' });
    await expect
      .poll(() => memberRow.textContent(), { timeout: 10_000 })
      .toMatch(/Failing, next try .*HTTP 500/);
    expect(receiver.received[0].json.details.member.id).toBe(cy.id);
    await expect
      .poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent(), { timeout: 10_000 })
      .toContain('Failures since');

    // A test event while it still fails says so.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/^Test event \d+ failed: HTTP 500\.$/);

    receiverHealthy = true;
    const eventId = (await memberRow.getByRole('cell').first().textContent())!.match(
      /^member_created #(\d+)$/,
    )![1];
    await deliveries.getByRole('button', { name: `Retry event ${eventId}` }).click();
    await expect.poll(() => memberRow.textContent(), { timeout: 10_000 }).toMatch(/DeliveredHTTP 204/);
    expect(receiver.received.at(-1)!.json).toMatchObject({
      type: 'member_created',
      details: { member: { id: cy.id } },
    });

    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/^Test event \d+ delivered: HTTP 204\.$/);
    expect(receiver.received).toHaveLength(before + 1);
    const test = receiver.received.at(-1)!;
    expect(test.json.type).toBe('test');
    expect(test.headers['x-makerspace-event']).toBe('test');
    await expect
      .poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent(), { timeout: 10_000 })
      .not.toContain('Failures since');
    await shot(page, 'admin-webhooks');

    // Edit: another label and one more category; a URL the hub refuses shows its 422 and changes nothing.
    await page.getByRole('button', { name: 'Edit Accounting sync' }).click();
    const edit = page.getByRole('form', { name: 'Edit Accounting sync' });
    await edit.getByLabel('Label').fill('Accounting');
    await edit.getByLabel('Charges').check();
    await edit.getByLabel('Receiver URL').fill('ftp://127.0.0.1/hook');
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => edit.getByRole('alert').textContent()).toBe('url must use https:// or http://');
    expect((await hub.api('GET', '/webhooks')).body[0].label).toBe('Accounting sync');
    await edit.getByLabel('Receiver URL').fill(receiver.url);
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent())
      .toContain('Members, Charges');
    const [saved] = (await hub.api('GET', '/webhooks')).body;
    expect(saved).toMatchObject({ label: 'Accounting', url: receiver.url, categories: ['member', 'charge'] });
  }, 90_000);

  it('an admin of two accounts switches between them in the console', async () => {
    const { page } = admin;
    // A second account on the same hub, in which the owner's address is an admin with the same password.
    const init = await runProcess(
      [hubCli, 'init', '--account', 'Fablab Nord', '--email', 'owner@nord-billing.example'],
      { HUB_DATA_DIR: hub.dataDir, LOG_LEVEL: 'silent' },
    );
    expect(init.code).toBe(0);
    const nord = JSON.parse(init.stdout.trim().split('\n').at(-1)!);
    const dana = await hub.api(
      'POST',
      '/members',
      { firstName: 'Dana', emailAddress: ownerEmail },
      nord.token,
    );
    expect(dana.status).toBe(201);
    await hub.api('PUT', `/members/${dana.body.id}/privileges`, { privileges: 'admin' }, nord.token);
    const key = (await hub.api('POST', '/api-keys', { member: dana.body.id }, nord.token)).body;
    const danaToken = (await hub.api('GET', `/api-keys/${key.id}/token`, undefined, nord.token)).body.token;
    expect((await hub.api('PUT', '/user/password', { password }, danaToken)).status).toBe(204);
    await hub.api(
      'POST',
      '/charges',
      { member: dana.body.id, price: '5.00', description: 'Nord laser' },
      nord.token,
    );

    await adminNav(page).getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => page.getByTestId('charges-totals').textContent()).toMatch(/^18 charges: /);
    await adminNav(page).getByRole('button', { name: 'Switch account' }).click();
    const form = page.getByRole('form', { name: 'Switch account' });
    await form.getByLabel('Your password').fill('not my password');
    await form.getByRole('button', { name: 'Show my accounts' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toBe('Wrong password');
    await form.getByLabel('Your password').fill(password);
    await form.getByRole('button', { name: 'Show my accounts' }).click();
    const mine = form.getByRole('list', { name: 'Your accounts' });
    await expect.poll(() => mine.textContent()).toContain('(owner): you are here');
    await shot(page, 'admin-account-switch');
    await mine.getByRole('button', { name: 'Switch to Fablab Nord' }).click();
    await page.waitForURL(`${web}/admin`);
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    await adminNav(page).getByRole('link', { name: 'Billing' }).click();
    // Only Fablab Nord's records now: its one charge, none of the first account's.
    await expect
      .poll(() => page.getByTestId('charges-totals').textContent())
      .toBe('1 charge: 5.00 (invoiced 0.00, not invoiced 5.00)');
    expect((await page.evaluate(() => fetch('/api/v1/user/me').then((r) => r.json()))).account).toBe(
      nord.accountId,
    );

    // And back.
    await adminNav(page).getByRole('button', { name: 'Switch account' }).click();
    await form.getByLabel('Your password').fill(password);
    await form.getByRole('button', { name: 'Show my accounts' }).click();
    await expect.poll(() => mine.textContent()).toContain('Fablab Nord (admin): you are here');
    await mine.getByRole('button', { name: /^Switch to / }).click();
    await page.waitForURL(`${web}/admin`);
    await adminNav(page).getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => page.getByTestId('charges-totals').textContent()).toMatch(/^18 charges: /);
  }, 90_000);
});
