import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  desktop,
  freePort,
  launchChromium,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { startHubProcess } from '../support/e2e.js';
import { stopAll } from '../support/processes.js';

const password = 'spindle-sander-elm-3318';

/** A fresh hub, its owner's password set, and an admin page signed in. */
async function freshHub(browser: Browser, env: NodeJS.ProcessEnv = {}) {
  const httpPort = await freePort();
  const web = `http://127.0.0.1:${httpPort}`;
  const hub = await startHubProcess({ httpPort, env });
  const me = (await hub.api('GET', '/user/me')).body;
  expect((await hub.api('PUT', '/user/password', { password })).status).toBe(204);
  const { context, page } = await desktop(browser);
  page.setDefaultTimeout(8_000);
  await signInWithPassword(page, web, me.emailAddress, password, '/admin');
  return { hub, web, me, context, page };
}

const checklist = (page: Page) => page.getByRole('list', { name: 'First-run checklist' });
const item = (page: Page, name: RegExp) => checklist(page).getByRole('listitem', { name });

/** Issue 32, point 8: the first-run checklist and the HUB_PUBLIC_URL warnings (Chromium, real hubs). */
describe.runIf(browserTestsEnabled())('first-run checklist on the dashboard', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stopAll();
  });

  it('without HUB_PUBLIC_URL: the checklist links each step, the stickers and pairing warn, and it can be hidden', async () => {
    const { hub, web, me, context, page } = await freshHub(browser);
    await expect.poll(() => checklist(page).getByRole('listitem').count()).toBe(7);
    expect(await page.getByText('0 of 7 done').count()).toBe(1);
    expect(await item(page, /public address.*: to do$/).textContent()).toContain('phones cannot reach');
    for (const [name, href] of [
      ['Set the time zone', '/admin/spaces'],
      ['Set the opening hours', '/admin/spaces'],
      ['Create a package', '/admin/packages'],
      ['Add a door or machine', '/admin/resources'],
      ['Pair a bridge', '/admin/resources'],
      ['Invite a member', '/admin/members'],
    ])
      expect(await checklist(page).getByRole('link', { name }).getAttribute('href')).toBe(href);

    // The first step through its link.
    await checklist(page).getByRole('link', { name: 'Set the time zone' }).click();
    await page.waitForURL(`${web}/admin/spaces`);
    await page.getByLabel('Time zone', { exact: true }).fill('Europe/Vienna');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Time zone saved');
    // A door, so there is something to pair.
    const door = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Front door', controlType: 'door' })
    ).body;
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect.poll(() => item(page, /^Time zone of .*: done$/).count()).toBe(1);
    await expect.poll(() => item(page, /^A door or machine: done$/).count()).toBe(1);
    expect(await page.getByText('2 of 7 done').count()).toBe(1);
    expect(await checklist(page).getByRole('link', { name: 'Set the time zone' }).count()).toBe(0);

    // The pairing panel warns that its command names localhost.
    await page.getByRole('button', { name: 'Pair a bridge for Front door' }).click();
    const pairing = page.getByRole('region', { name: 'Pair a bridge for Front door' });
    await expect
      .poll(() => pairing.getByRole('alert').textContent())
      .toContain(
        'HUB_PUBLIC_URL is not set, so this command and its QR code point at localhost, which phones cannot reach',
      );
    await saveScreenshot(page, 'admin-first-run');

    // At 360 px the dashboard and its checklist fit the screen.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await expect.poll(() => checklist(page).getByRole('listitem').count()).toBe(7);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 860 });

    // The stickers page warns too.
    await page.goto(`${web}/stickers?ids=${door.id}`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain(
        'HUB_PUBLIC_URL is not set, so these stickers point at localhost, which phones cannot reach',
      );

    // Hidden by the admin: gone, and still gone after a reload.
    await page.goto(`${web}/admin`);
    await page.getByRole('button', { name: 'Hide the checklist' }).click();
    expect(await checklist(page).count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Doors and machines' }).count()).toBe(1);
    expect(await checklist(page).count()).toBe(0);
    await context.close();
    await hub.proc.stop();
  }, 90_000);

  it('with HUB_PUBLIC_URL set: no warning, and the checklist leaves once everything is done', async () => {
    const port = await freePort();
    const web = `http://127.0.0.1:${port}`;
    const hub = await startHubProcess({ httpPort: port, env: { HUB_PUBLIC_URL: web } });
    const me = (await hub.api('GET', '/user/me')).body;
    expect((await hub.api('PUT', '/user/password', { password })).status).toBe(204);
    const { context, page } = await desktop(browser);
    page.setDefaultTimeout(8_000);
    await signInWithPassword(page, web, me.emailAddress, password, '/admin');
    await expect.poll(() => item(page, /public address.*: done$/).count()).toBe(1);

    const space = (await hub.api('GET', `/spaces/${me.space}`)).body;
    await hub.api('PUT', `/spaces/${me.space}`, {
      timezone: 'Europe/Vienna',
      lockVersion: space.lockVersion,
    });
    await hub.api('PUT', `/spaces/${me.space}/opening-hours`, [
      { dayOfWeek: 1, fromTime: '00:00', untilTime: '24:00' },
    ]);
    await hub.api('POST', '/packages', { name: 'Basic' });
    const door = (await hub.api('POST', '/resources', { space: me.space, name: 'Door', controlType: 'door' }))
      .body;
    await hub.api('PUT', `/resources/${door.id}/bridge`, {});
    const ada = (
      await hub.api('POST', '/members', { firstName: 'Ada', emailAddress: 'ada@first-run.example' })
    ).body;
    await page.reload();
    await expect.poll(() => page.getByText('6 of 7 done').count()).toBe(1);
    expect(await item(page, /^An invited member: to do$/).count()).toBe(1);

    // The last step through its link: invite Ada on the members page.
    await checklist(page).getByRole('link', { name: 'Invite a member' }).click();
    await page.waitForURL(`${web}/admin/members`);
    await page.getByRole('button', { name: 'Ada', exact: true }).click();
    await page.getByRole('button', { name: 'Invite Ada' }).click();
    await expect.poll(() => page.getByLabel('Invitation link').count()).toBe(1);
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Doors and machines' }).count()).toBe(1);
    await expect.poll(() => checklist(page).count()).toBe(0);
    expect(ada.id).toBeGreaterThan(0);

    await page.goto(`${web}/stickers?ids=${door.id}`);
    await expect.poll(() => page.getByRole('img', { name: 'QR sticker of Door' }).count()).toBe(1);
    expect(await page.getByText('HUB_PUBLIC_URL is not set').count()).toBe(0);
    await context.close();
  }, 90_000);
});
