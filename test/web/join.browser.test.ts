import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  desktop,
  freePort,
  launchChromium,
  phone,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { type MailCatcher, startMailCatcher } from '../support/mail.js';
import { stopAll } from '../support/processes.js';

/** The link of a mail (the confirmation or sign-in link), as the mail carries it. */
function linkIn(text: string, path: string): string {
  const match = new RegExp(`(http://[^\\s"<>]+${path}#token=[A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`no ${path} link in the mail`);
  return match[1];
}

/**
 * Sign-up in Chromium against a real hub process with the local mail server: a stranger joins
 * from a phone, confirms the mail, waits; the admin approves in the console; the member signs in
 * and later accepts changed house rules; a trainer records her induction by a card tap at the
 * laser, and she switches it on.
 */
describe.runIf(browserTestsEnabled())('a stranger joins alone (Chromium, real hub, local mail)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let mail: MailCatcher;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  let stranger: { context: BrowserContext; page: Page };
  let space = 0;
  const adminPassword = 'router-table-birch-4410';

  beforeAll(async () => {
    mail = await startMailCatcher();
    const httpPort = await freePort();
    web = `http://127.0.0.1:${httpPort}`;
    hub = await startHubProcess({
      httpPort,
      env: { HUB_PUBLIC_URL: web, HUB_SMTP_URL: mail.url, HUB_MAIL_FROM: 'Lab <hub@lab.example>' },
    });
    const me = (await hub.api('GET', '/user/me')).body;
    space = me.space;
    expect((await hub.api('PUT', '/user/password', { password: adminPassword })).status).toBe(204);
    const pkg = (
      await hub.api('POST', '/packages', {
        name: 'Full membership',
        description: 'Every machine, every day',
        recurringFee: '35.00',
      })
    ).body;
    await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await hub.api('POST', '/packages', { name: 'Weekends', recurringFee: '15.00' });
    await hub.api('PUT', `/spaces/${space}/house-rules`, {
      houseRules:
        '<ul><li>Leave every machine clean.</li><li>Wear goggles at the lathe.</li><li>Nobody works alone at night.</li></ul>',
      waiver: '<p>I use the machines at my own risk and follow the instructions of the trainers.</p>',
    });
    const on = await hub.api('PUT', `/spaces/${space}/sign-up-settings`, {
      enabled: true,
      packages: [pkg.id],
    });
    expect(on.status).toBe(200);

    browser = await launchChromium();
    admin = await desktop(browser);
    stranger = await phone(browser);
    admin.page.setDefaultTimeout(8_000);
    stranger.page.setDefaultTimeout(8_000);
    await signInWithPassword(admin.page, web, me.emailAddress, adminPassword, '/admin');
  }, 120_000);

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      for (const [who, p] of [
        ['admin', admin?.page],
        ['stranger', stranger?.page],
      ] as const) {
        await p
          ?.screenshot({
            path: join(tmpdir(), `join-failed-${who}-${task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
            fullPage: true,
          })
          .catch(() => {});
      }
    }
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await mail?.close();
  });

  it('a stranger signs up from a phone-sized page and confirms the e-mail address', async () => {
    const { page } = stranger;
    await page.goto(`${web}/join`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Join /);
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('E-mail address').fill('grace@join.example');
    await page.getByRole('radio', { name: /Full membership/ }).check();
    expect(await page.getByText('Wear goggles at the lathe.').isVisible()).toBe(true);
    // Nothing to press before the rules are accepted.
    expect(await page.getByRole('button', { name: 'Sign up' }).isDisabled()).toBe(true);
    await page.getByLabel('I accept the house rules and the waiver (version 1)').check();
    // The form fits the phone: no sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await saveScreenshot(page, 'join');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Almost there' }).count()).toBe(1);
    expect(await page.getByRole('status').textContent()).toContain('grace@join.example');

    const letter = await mail.next('grace@join.example');
    await page.goto(linkIn(letter.text, '/join/confirm'));
    await expect.poll(() => page.getByText('Your e-mail address is confirmed.').count()).toBe(1);
    // The token left the address bar.
    expect(page.url()).toBe(`${web}/join/confirm`);
  });

  it('the pending member cannot sign in yet; the admin approves in the console', async () => {
    // Waiting: a sign-in link is asked for, and none comes.
    await stranger.page.goto(`${web}/sign-in`);
    await stranger.page.getByLabel('E-mail address').fill('grace@join.example');
    await stranger.page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await expect(mail.next('grace@join.example', 1500)).rejects.toThrow(/no mail/);

    const { page } = admin;
    await page.goto(`${web}/admin/sign-ups`);
    const row = page.getByRole('row').filter({ hasText: 'Grace Hopper' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('E-mail confirmed');
    expect(await row.textContent()).toContain('Full membership');
    await saveScreenshot(page, 'admin-sign-ups');
    // The queue fits a phone too: its rows stack.
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 860 });
    await row.getByRole('button', { name: 'Approve Grace' }).click();
    await expect.poll(() => page.getByText('No sign-ups here.').count()).toBe(1);
    const members = (await hub.api('GET', '/members?q=grace')).body;
    expect(members).toMatchObject([{ firstName: 'Grace', state: 'active' }]);
    const held = (await hub.api('GET', `/members/${members[0].id}/packages`)).body;
    expect(held).toHaveLength(1);
  });

  it('the new member signs in with a mailed link and accepts changed house rules', async () => {
    const { page } = stranger;
    await page.goto(`${web}/sign-in`);
    await page.getByLabel('E-mail address').fill('grace@join.example');
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    // Other mails reach her too now (her first invoice): take the one with the link.
    let letter = await mail.next('grace@join.example');
    while (!letter.text.includes('/sign-in/link#token=')) letter = await mail.next('grace@join.example');
    await page.goto(linkIn(letter.text, '/sign-in/link'));
    await expect.poll(() => page.getByRole('heading', { name: 'Hello, Grace' }).count()).toBe(1);
    // She accepted version 1 when she signed up: no question on her page.
    expect(await page.getByRole('heading', { name: 'The house rules changed' }).count()).toBe(0);

    await hub.api('PUT', `/spaces/${space}/house-rules`, {
      houseRules:
        '<ul><li>Leave every machine clean.</li><li>Wear goggles and ear protection at the lathe.</li></ul>',
      waiver: '<p>I use the machines at my own risk and follow the instructions of the trainers.</p>',
    });
    await page.reload();
    const banner = page.getByRole('region', { name: 'The house rules changed' });
    await expect.poll(() => banner.count()).toBe(1);
    expect(await banner.textContent()).toContain('ear protection');
    await banner.getByLabel('I accept the house rules and the waiver (version 2)').check();
    await saveScreenshot(page, 'house-rules-changed');
    await banner.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => banner.count()).toBe(0);
    const accepted = (await hub.api('GET', `/spaces/${space}/house-rules/acceptances`)).body;
    expect(accepted).toMatchObject([
      { firstName: 'Grace', version: 1, via: 'signUp' },
      { firstName: 'Grace', version: 2, via: 'app' },
    ]);
  });

  it('a trainer records her induction by a card tap at the laser, and she switches it on', async () => {
    const me = (await hub.api('GET', '/user/me')).body;
    const laser = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Laser cutter', requiresTraining: true })
    ).body;
    await hub.api('PUT', `/resources/${laser.id}/bridge`, {});
    const bridgeKey = (await hub.api('GET', `/resources/${laser.id}/bridge/api-key`)).body.apiKey as string;
    const agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: laser.id,
      apiKey: bridgeKey,
      controlType: 'machine',
    });
    const course = (
      await hub.api('POST', '/training-courses', { title: 'Laser induction', resources: [laser.id] })
    ).body;
    const tina = (
      await hub.api('POST', '/members', {
        firstName: 'Tina',
        lastName: 'Trainer',
        emailAddress: 'tina@join.example',
      })
    ).body;
    expect(
      (await hub.api('POST', `/training-courses/${course.id}/trainers`, { member: tina.id })).status,
    ).toBe(201);
    const key = (await hub.api('POST', '/api-keys', { member: tina.id })).body;
    const tinaToken = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token as string;
    expect(
      (await hub.api('PUT', '/user/password', { password: 'chisel-maple-3310' }, tinaToken)).status,
    ).toBe(204);
    const grace = (await hub.api('GET', '/members?q=grace')).body[0];
    await hub.api('PUT', `/members/${grace.id}/key`, { type: 'em4102', token: '6B6B000042' });

    // Grace is not trained yet: her phone says so before she presses anything.
    const sticker = `${web}/r/${laser.id}?c=${encodeURIComponent(laser.switchOnCode)}`;
    await stranger.page.goto(sticker);
    await expect.poll(() => stranger.page.getByTestId('verdict').textContent()).toContain('Laser induction');

    // Tina, at the laser with her phone: Train someone, and Grace taps her card at the reader.
    const trainer = await phone(browser);
    trainer.page.setDefaultTimeout(8_000);
    await signInWithPassword(trainer.page, web, 'tina@join.example', 'chisel-maple-3310', `/r/${laser.id}`);
    await trainer.page.getByRole('button', { name: 'Train someone' }).click();
    await trainer.page.getByRole('button', { name: 'Trainee taps their card' }).click();
    await expect.poll(() => trainer.page.getByTestId('train-waiting').count()).toBe(1);
    const tapped = await agent.tap('6B6B000042');
    expect(tapped.code).toBe(0);
    await expect
      .poll(() => trainer.page.getByTestId('train-done').textContent(), { timeout: 10_000 })
      .toBe('Training recorded for Grace Hopper.');
    expect(agent.relay()).not.toBe('on');

    // Grace's page now lets her switch the laser on, and the relay closes.
    await stranger.page.reload();
    await expect
      .poll(() => stranger.page.getByTestId('verdict').textContent())
      .toContain('You may use it now');
    await stranger.page.getByRole('button', { name: 'Switch on' }).click();
    await expect.poll(() => agent.relay(), { timeout: 10_000 }).toBe('on');
    await trainer.context.close();
  });
});
