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

describe.runIf(browserTestsEnabled())('the kiosk and Who is in, in Chromium (real hub)', () => {
  let browser: Browser;
  let started: ConsoleHub;
  let admin: { context: BrowserContext; page: Page };
  const password = 'mitre-saw-7781-dovetail';

  beforeAll(async () => {
    started = await startConsoleHub(password);
    browser = await launchChromium();
    admin = await ownerDesktop(browser, started, '/kiosk', 5_000);
  }, 120_000);

  consoleTestHooks('kiosk', () => ({ browser, pages: admin?.page }));

  it('checks in and out with one button, and the dashboard shows who is in by choice', async () => {
    const { page } = admin;
    const button = page.getByRole('button', { name: 'Check in' });
    await button.click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('You are checked in.');
    const checkIns = (await started.hub.api('GET', '/check-ins?state=in')).body;
    expect(checkIns).toEqual([expect.objectContaining({ member: started.owner.id, checkInMethod: 'kiosk' })]);

    // Shown by name only once the member chooses it.
    await page.getByRole('checkbox', { name: 'Show my name to the other members while I am in' }).check();
    await expect
      .poll(async () => (await started.hub.api('GET', `/members/${started.owner.id}/presence-settings`)).body)
      .toEqual({ showPresence: true });
    await fitsPhone(page);
    await page.setViewportSize({ width: 360, height: 740 });
    await saveScreenshot(page, 'member-kiosk');
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.goto(`${started.web}/admin`);
    const panel = page.getByRole('region', { name: 'Who is in' });
    await expect.poll(() => panel.textContent()).toContain('1 checked in');
    expect(await panel.getByRole('listitem').first().textContent()).toContain(started.owner.firstName);

    await page.goto(`${started.web}/kiosk`);
    await page.getByRole('button', { name: 'Check out' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('You are checked out. See you soon!');
    expect((await started.hub.api('GET', '/check-ins?state=in')).body).toEqual([]);
  });
});
