import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, openConsole, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled, phone, saveScreenshot, signInWithPassword } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';

describe.runIf(browserTestsEnabled())('admin members and billing actions in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  let owner: { id: number; emailAddress: string; name: string };
  const ids = { ada: 0, bo: 0 };
  const password = 'members-teapot-2291';
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Admin' });

  /** Opens a member's page from the members list. */
  async function openMember(page: Page, search: string, name: string) {
    await page.goto(`${web}/admin/members`);
    await page.getByLabel('Search by name, e-mail, member number or card id').fill(search);
    const button = page.getByRole('table', { name: 'Members' }).getByRole('button', { name, exact: true });
    await expect.poll(() => button.count()).toBe(1);
    await button.click();
    await expect.poll(() => page.getByRole('form', { name: `Edit ${name}` }).isVisible()).toBe(true);
  }

  beforeAll(async () => {
    const started = await startConsoleHub(password);
    ({ hub, web } = started);
    const me = started.owner;
    owner = { id: me.id, emailAddress: me.emailAddress, name: `${me.firstName} ${me.lastName}`.trim() };
    const member = async (firstName: string, lastName: string) =>
      (
        await hub.api('POST', '/members', {
          firstName,
          lastName,
          emailAddress: `${firstName.toLowerCase()}@members-test.example`,
        })
      ).body.id as number;
    ids.ada = await member('Ada', 'Lovelace');
    ids.bo = await member('Bo', 'Plain');
    for (const [m, price, description] of [
      [ids.ada, '12.50', 'Laser, 25 min'],
      [ids.ada, '3.00', 'Plywood sheet'],
      [ids.bo, '30.00', 'Membership March'],
    ] as const) {
      expect((await hub.api('POST', '/charges', { member: m, price, description })).status).toBe(201);
    }
    ({ browser, admin } = await openConsole(started, '/admin/members'));
  }, 120_000);

  consoleTestHooks('admin-members', () => ({ browser, pages: admin?.page }));

  it("edits every kind of member field, privileges, and schedules a change; the owner's own demotion is refused in words", async () => {
    const { page } = admin;
    await openMember(page, 'Lovelace', 'Ada Lovelace');
    const form = page.getByRole('form', { name: 'Edit Ada Lovelace' });
    await form.getByLabel('Member number').fill('M-001');
    await form.getByLabel('Phone').fill('+43 1 234 5678');
    await form.getByLabel('Company').fill('Analytical Engines Ltd');
    await form.getByLabel('Date of birth').fill('1990-12-10');
    await form.getByLabel('Gender').selectOption('female');
    await form.getByLabel('Language (e.g. en, de)').fill('en');
    await form.getByLabel('Address', { exact: true }).fill('Hauptstraße 1');
    await form.getByLabel('Postcode', { exact: true }).fill('1010');
    await form.getByLabel('City', { exact: true }).fill('Vienna');
    await form.getByLabel('Country code (e.g. AT)').fill('AT');
    await form.getByLabel('Invoices go to a billing address').check();
    await form.getByLabel('Billing company').fill('Engines GmbH');
    await form.getByLabel('Billing city').fill('Graz');
    await form.getByLabel('Tax exempt').check();
    await form.getByLabel('May sign in to the web app').uncheck();
    await form.getByLabel('Notes').fill('Prefers the big laser.');
    await form.getByLabel('Metadata (JSON)').fill('{"locker": 12}');
    await form.getByRole('button', { name: 'Save member' }).click();
    await expect.poll(() => form.textContent()).toContain('Saved Ada Lovelace.');
    const ada = (await hub.api('GET', `/members/${ids.ada}`)).body;
    expect(ada).toMatchObject({
      memberNumber: 'M-001',
      phone: '+43 1 234 5678',
      company: 'Analytical Engines Ltd',
      dateOfBirth: '1990-12-10',
      gender: 'female',
      language: 'en',
      address: 'Hauptstraße 1',
      zip: '1010',
      city: 'Vienna',
      countryCode: 'AT',
      hasBillingAddress: true,
      billingCompany: 'Engines GmbH',
      billingCity: 'Graz',
      taxExempt: true,
      allowLogin: false,
      notes: 'Prefers the big laser.',
      metadata: { locker: 12 },
    });

    // Bad JSON is refused in words before anything is sent.
    await form.getByLabel('Metadata (JSON)').fill('{locker');
    await form.getByRole('button', { name: 'Save member' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toBe('Metadata (JSON): not valid JSON');
    await form.getByLabel('Metadata (JSON)').fill('{"locker": 12}');

    // Privileges: Ada becomes an admin.
    const privileges = page.getByRole('form', { name: 'Privileges of Ada Lovelace' });
    await expect.poll(() => privileges.getByLabel('Privileges').inputValue()).toBe('member');
    await privileges.getByLabel('Privileges').selectOption('admin');
    await privileges.getByRole('button', { name: 'Save privileges of Ada Lovelace' }).click();
    await expect.poll(() => privileges.textContent()).toContain('Ada Lovelace is now an admin.');
    expect((await hub.api('GET', `/members/${ids.ada}/privileges`)).body).toEqual({ privileges: 'admin' });

    // A scheduled change: locked from the first of next year.
    const changes = page.getByRole('region', { name: 'Scheduled changes of Ada Lovelace' });
    const schedule = page.getByRole('form', { name: 'Schedule a change for Ada Lovelace' });
    await schedule.getByLabel('Applies on').fill('2027-01-01');
    await schedule.getByLabel('Field').selectOption({ label: 'State' });
    await schedule.getByLabel('New value').selectOption('locked');
    await schedule.getByRole('button', { name: 'Schedule change' }).click();
    await expect
      .poll(() => changes.getByRole('listitem').first().textContent())
      .toContain('2027-01-01: State → locked');
    const scheduled = (await hub.api('GET', `/members/${ids.ada}/changes`)).body;
    expect(scheduled).toMatchObject([
      { date: '2027-01-01', state: 'scheduled', changes: { state: ['active', 'locked'] } },
    ]);
    await page.setViewportSize({ width: 1280, height: 860 });
    await saveScreenshot(page, 'admin-member');

    // The only owner cannot give up owner: the refusal says why, and nothing changes.
    await openMember(page, owner.emailAddress, owner.name);
    const mine = page.getByRole('form', { name: `Privileges of ${owner.name}` });
    await expect.poll(() => mine.getByLabel('Privileges').inputValue()).toBe('owner');
    await mine.getByLabel('Privileges').selectOption('admin');
    await mine.getByRole('button', { name: `Save privileges of ${owner.name}` }).click();
    await expect
      .poll(() => mine.getByRole('alert').textContent())
      .toBe("You are the account's last owner: make another member owner first");
    await expect.poll(() => mine.getByLabel('Privileges').inputValue()).toBe('owner');
    expect((await hub.api('GET', `/members/${owner.id}/privileges`)).body).toEqual({ privileges: 'owner' });
    // Every member in the list beside the owner's page with the refusal.
    await page.getByLabel('Search by name, e-mail, member number or card id').fill('');
    await expect.poll(() => page.getByRole('table', { name: 'Members' }).getByRole('row').count()).toBe(4);
    await saveScreenshot(page, 'admin-members');
  });

  it('billing: adds a charge, edits it and deletes it while not invoiced', async () => {
    const { page } = admin;
    await nav(page).getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Billing', level: 1 }).isVisible()).toBe(true);
    const charges = page.getByRole('region', { name: 'Charges' });
    await charges.getByRole('button', { name: 'Add a charge' }).click();
    const add = page.getByRole('form', { name: 'New charge' });
    await add.getByLabel('Search member to charge').fill('Plain');
    const select = add.getByLabel('Member to charge', { exact: true });
    await expect.poll(() => select.locator('option').allTextContents()).toContain('Bo Plain');
    await select.selectOption({ label: 'Bo Plain' });
    await add.getByLabel('Description').fill('Locker key');
    await add.getByLabel('Price').fill('5.00');
    await add.getByRole('button', { name: 'Add charge' }).click();
    const table = charges.getByRole('table', { name: 'Charges' });
    await expect.poll(() => table.textContent()).toContain('Locker key');
    const added = (await hub.api('GET', `/charges?member=${ids.bo}&q=Locker`)).body;
    expect(added).toMatchObject([{ description: 'Locker key', price: '5.00', invoice: null }]);

    await table.getByRole('button', { name: 'Edit charge Locker key' }).click();
    const edit = page.getByRole('form', { name: 'Edit charge Locker key' });
    await edit.getByLabel('Description').fill('Locker key, lost');
    await edit.getByLabel('Price').fill('7.50');
    await edit.getByRole('button', { name: 'Save charge' }).click();
    await expect.poll(() => table.textContent()).toContain('Locker key, lost');
    expect((await hub.api('GET', `/charges/${added[0].id}`)).body).toMatchObject({
      description: 'Locker key, lost',
      price: '7.50',
    });

    page.once('dialog', (d) => void d.accept());
    await table.getByRole('button', { name: 'Delete charge Locker key, lost' }).click();
    await expect.poll(() => table.textContent()).not.toContain('Locker key');
    expect((await hub.api('GET', `/charges/${added[0].id}`)).status).toBe(404);
  });

  it('billing: previews the invoice run, runs it, shows the lines, records a cash payment; the invoice is paid and the balance moves', async () => {
    const { page } = admin;
    await page.goto(`${web}/admin/billing`);
    const run = page.getByRole('region', { name: 'Invoice run' });
    await run.getByRole('button', { name: 'Preview invoice run' }).click();
    const preview = run.getByTestId('invoice-run-preview');
    await expect.poll(() => preview.textContent()).toContain('2 members would be invoiced, 45.50 in all.');
    expect(await preview.textContent()).toContain('Ada Lovelace (M-001): 15.50 EUR, 2 lines');
    await run.getByText('Ada Lovelace (M-001)').click();
    expect(await preview.textContent()).toContain('Plywood sheet, 3.00');
    // The preview wrote nothing.
    expect((await hub.api('GET', '/invoices')).body).toEqual([]);
    await saveScreenshot(page, 'admin-invoice-run');

    await run.getByRole('button', { name: 'Run invoices for 2 members' }).click();
    await expect
      .poll(() => run.getByRole('status').textContent(), { timeout: 20_000 })
      .toBe('Made 2 invoices.');
    const invoices = page.getByRole('region', { name: 'Invoices' });
    await expect
      .poll(() => page.getByTestId('invoices-totals').textContent())
      .toMatch(/^2 invoices: 45\.50 /);
    const adaInvoice = (await hub.api('GET', `/invoices?member=${ids.ada}`)).body[0];
    await invoices.getByRole('button', { name: `Open invoice ${adaInvoice.number}` }).click();
    const view = page.getByRole('region', { name: `Invoice ${adaInvoice.number}` });
    const lines = view.getByRole('table', { name: `Lines of Invoice ${adaInvoice.number}` });
    await expect.poll(async () => (await lines.getByRole('row').allTextContents()).length).toBe(3);
    expect((await lines.textContent()) ?? '').toContain('Laser, 25 min');
    expect(await view.getByTestId('invoice-state').textContent()).toBe('unpaid');

    // The open balances before the payment: Ada owes 15.50.
    const balances = page.getByRole('table', { name: 'Open balances' });
    await expect.poll(() => balances.textContent()).toContain('Ada Lovelace (M-001)-15.50');

    await view.getByRole('button', { name: `Record a payment for ${adaInvoice.number}` }).click();
    const pay = view.getByRole('form', { name: `Record a payment for ${adaInvoice.number}` });
    expect(await pay.getByLabel('Amount').inputValue()).toBe('15.50');
    await pay.getByLabel('Method').selectOption('cash');
    await pay.getByRole('button', { name: 'Save payment' }).click();
    await expect.poll(() => view.getByTestId('invoice-state').textContent()).toBe('paid');
    await expect.poll(() => balances.textContent()).not.toContain('Ada Lovelace');
    expect(await balances.textContent()).toContain('Bo Plain-30.00');
    const payment = (await hub.api('GET', `/payments?member=${ids.ada}`)).body[0];
    expect(payment).toMatchObject({ total: '15.50', method: 'cash', invoices: [adaInvoice.id] });
    // The lists read again: the invoice paid, the payment listed.
    await expect
      .poll(() => page.getByTestId('invoices-totals').textContent())
      .toBe('2 invoices: 45.50 (paid 15.50, open 30.00)');
    await expect.poll(() => page.getByTestId('payments-totals').textContent()).toMatch(/^1 payment: 15\.50 /);
    await saveScreenshot(page, 'admin-billing');

    // Bo's invoice cancelled: its charge is open again, on no invoice.
    const boInvoice = (await hub.api('GET', `/invoices?member=${ids.bo}`)).body[0];
    await invoices.getByRole('button', { name: `Open invoice ${boInvoice.number}` }).click();
    const boView = page.getByRole('region', { name: `Invoice ${boInvoice.number}` });
    page.once('dialog', (d) => void d.accept());
    await boView.getByRole('button', { name: `Cancel invoice ${boInvoice.number}` }).click();
    await expect.poll(() => boView.getByTestId('invoice-state').textContent()).toBe('cancelled');
    await expect
      .poll(() => boView.getByRole('table', { name: `Lines of Invoice ${boInvoice.number}` }).textContent())
      .toContain('No lines: a cancelled invoice gives its charges back.');
    await expect.poll(() => balances.textContent()).toContain('Bo Plain-30.000.0030.00');
    expect((await hub.api('GET', `/charges?member=${ids.bo}`)).body).toMatchObject([{ invoice: null }]);

    // The member's page shows the same: the invoice paid, the payment, the balance settled.
    await openMember(page, 'Lovelace', 'Ada Lovelace');
    await expect.poll(() => page.getByTestId('member-balance').textContent()).toBe('Balance 0.00 (settled)');
    const memberInvoices = page.getByRole('table', { name: 'Invoices of Ada Lovelace' });
    expect(await memberInvoices.textContent()).toContain(`${adaInvoice.number}`);
    expect(await memberInvoices.textContent()).toContain('paid');
    const memberPayments = page.getByRole('table', { name: 'Payments of Ada Lovelace' });
    expect(await memberPayments.textContent()).toContain('cash');

    // A credit added on the member's page.
    await page.getByRole('button', { name: 'Add a credit for Ada Lovelace' }).click();
    const credit = page.getByRole('form', { name: 'New credit for Ada Lovelace' });
    await credit.getByLabel('Credit amount').fill('10.00');
    await credit.getByLabel('Why').fill('Helped at the open day');
    await credit.getByRole('button', { name: 'Add credit' }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Credits of Ada Lovelace' }).textContent())
      .toContain('Helped at the open day');
  });

  it('on a phone the members page with a member open and the billing page fit the width', async () => {
    const mobile = await phone(browser);
    const { page } = mobile;
    await signInWithPassword(page, web, owner.emailAddress, password, '/admin/billing');
    await page
      .getByRole('region', { name: 'Invoice run' })
      .getByRole('button', { name: 'Preview invoice run' })
      .click();
    await page.waitForLoadState('networkidle');
    const wide = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await wide()).toBeLessThanOrEqual(360);
    await page.goto(`${web}/admin/members?member=${ids.ada}`);
    await expect.poll(() => page.getByRole('form', { name: 'Edit Ada Lovelace' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Add a charge to Ada Lovelace' }).click();
    const invoice = page.getByRole('button', { name: /^Open invoice / }).first();
    await invoice.click();
    await page.waitForLoadState('networkidle');
    expect(await wide()).toBeLessThanOrEqual(360);
    await mobile.context.close();
  });
});
