import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleHub,
  consoleTestHooks,
  fitsPhone,
  ownerDesktop,
  startConsoleHub,
} from '../support/admin-console.js';
import { browserTestsEnabled, launchChromium, saveScreenshot } from '../support/browser.js';

describe.runIf(browserTestsEnabled())('mail notifications in Chromium (real hub, no mail server)', () => {
  let browser: Browser;
  let started: ConsoleHub;
  let admin: { context: BrowserContext; page: Page };
  const password = 'bandsaw-maple-2231-kerf';

  beforeAll(async () => {
    // No HUB_SMTP_URL: notifications wait in the outbox.
    started = await startConsoleHub(password);
    browser = await launchChromium();
    admin = await ownerDesktop(browser, started, '/account', 5_000);
  }, 120_000);

  consoleTestHooks('notifications', () => ({ browser, pages: admin?.page }));

  const settings = async () =>
    (await started.hub.api('GET', `/members/${started.owner.id}/notification-settings`)).body;

  it('a member chooses on the account page which mails they receive', async () => {
    const { page } = admin;
    const section = page.getByRole('region', { name: 'Mail notifications' });
    const reminder = section.getByRole('checkbox', { name: 'A reminder the day before a booking' });
    const invoice = section.getByRole('checkbox', { name: 'A new invoice' });
    await expect.poll(() => invoice.isChecked()).toBe(true);
    expect(await reminder.isChecked()).toBe(false);
    // The owner is an admin: the admins' mails are offered too.
    expect(await section.getByRole('checkbox', { name: 'A bridge is offline' }).isChecked()).toBe(true);

    await reminder.check();
    await expect.poll(async () => (await settings()).bookingReminder).toBe(true);
    await invoice.uncheck();
    await expect.poll(async () => (await settings()).invoiceIssued).toBe(false);
    await expect.poll(() => section.getByRole('status').textContent()).toBe('Saved.');

    // What was saved is what the page shows after a reload.
    await page.reload();
    await expect.poll(() => invoice.isChecked()).toBe(false);
    expect(await reminder.isChecked()).toBe(true);
    await saveScreenshot(page, 'account-notifications');
    await fitsPhone(page);
  });

  it('the admin console says that mail is not configured and what waits', async () => {
    const { hub, owner } = started;
    expect(
      (await hub.api('PUT', `/members/${owner.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' })).status,
    ).toBe(200);
    expect((await hub.api('POST', `/members/${owner.id}/key/lost`)).status).toBe(200);
    const { page } = admin;
    await page.goto(`${started.web}/admin/mail`);
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe('Mail is not configured (HUB_SMTP_URL); 1 notification waiting.');
    const entry = page.getByRole('list', { name: 'Notifications' }).getByRole('listitem').first();
    await expect.poll(() => entry.textContent()).toContain('Waiting');
    expect(await entry.textContent()).toContain('My key card reported lost');
    await saveScreenshot(page, 'admin-mail');
  });
});
