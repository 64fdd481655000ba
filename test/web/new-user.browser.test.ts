import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  desktop,
  freePort,
  launchChromium,
  saveScreenshot,
  signInWithPassword,
  saveThroughAccessPreview,
} from '../support/browser.js';
import {
  type AgentProcess,
  type HubProcess,
  startAgentProcess,
  startHubProcess,
  startOnlineDoorAgent,
} from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { hubCli, runProcess, stopAll } from '../support/processes.js';

/** The space's zone, far from the member's phone (America/New_York), so a slip shows by hours. */
const zone = 'Asia/Tokyo';
const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const todayIn = (tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());
function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
const weekdayIndex = (date: string) => (new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7;

/**
 * Issue 32, "what the new user met": each point fixed, seen in Chromium against a real hub
 * process without a mail server.
 */
describe.runIf(browserTestsEnabled())('what a new user met, fixed (Chromium, real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  let member: { context: BrowserContext; page: Page };
  let doorAgent: AgentProcess;
  const ids = { space: 0, door: 0, laser: 0, ada: 0, bo: 0 };
  const codes = { door: '', laser: '' };
  let ownerEmail = '';
  let adaToken = '';
  const adminPassword = 'drill-press-oak-7731';
  const adaPassword = 'band-saw-maple-2290';

  beforeAll(async () => {
    const httpPort = await freePort();
    web = `http://127.0.0.1:${httpPort}`;
    hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web } });
    const me = (await hub.api('GET', '/user/me')).body;
    ownerEmail = me.emailAddress;
    ids.space = me.space;
    expect((await hub.api('PUT', '/user/password', { password: adminPassword })).status).toBe(204);
    const space = (await hub.api('GET', `/spaces/${ids.space}`)).body;
    await hub.api('PUT', `/spaces/${ids.space}`, { timezone: zone, lockVersion: space.lockVersion });

    const resource = async (body: Record<string, unknown>) => {
      const r = (await hub.api('POST', '/resources', { space: ids.space, ...body })).body;
      await hub.api('PUT', `/resources/${r.id}/bridge`, {});
      const key = (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey as string;
      return { id: r.id as number, code: r.switchOnCode as string, key };
    };
    const door = await resource({ name: 'Front door', controlType: 'door', pulseSeconds: 2 });
    const laser = await resource({ name: 'Laser cutter', controlType: 'machine', canBeBooked: true });
    Object.assign(ids, { door: door.id, laser: laser.id });
    Object.assign(codes, { door: door.code, laser: laser.code });
    doorAgent = await startOnlineDoorAgent(hub, door.id, door.key);
    await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: laser.id,
      apiKey: laser.key,
      controlType: 'machine',
    });

    const ada = (
      await hub.api('POST', '/members', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@new-user.example',
      })
    ).body;
    ids.ada = ada.id;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership', allowsBooking: true })).body;
    await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await hub.api('POST', `/members/${ids.ada}/packages`, { package: pkg.id });
    const key = (await hub.api('POST', '/api-keys', { member: ids.ada })).body;
    adaToken = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: adaPassword }, adaToken)).status).toBe(204);
    ids.bo = (
      await hub.api('POST', '/members', { firstName: 'Bo', emailAddress: 'bo@new-user.example' })
    ).body.id;

    browser = await launchChromium();
    admin = await desktop(browser);
    // The member's phone is in New York; the space is in Tokyo.
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      locale: 'en-GB',
      timezoneId: 'America/New_York',
    });
    member = { context, page: await context.newPage() };
    admin.page.setDefaultTimeout(8_000);
    member.page.setDefaultTimeout(8_000);
    await signInWithPassword(admin.page, web, ownerEmail, adminPassword, '/admin');
    await signInWithPassword(member.page, web, 'ada@new-user.example', adaPassword, '/');
  }, 120_000);

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      for (const [who, p] of [
        ['admin', admin?.page],
        ['member', member?.page],
      ] as const) {
        await p
          ?.screenshot({
            path: join(tmpdir(), `new-user-failed-${who}-${task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
            fullPage: true,
          })
          .catch(() => {});
      }
    }
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll();
  });

  it('without a mail server the sign-in page asks for a password and says how else to get in', async () => {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${web}/sign-in`);
    await expect.poll(() => page.getByText('This hub sends no e-mail').count()).toBe(1);
    expect(await page.getByText('This hub sends no e-mail').textContent()).toContain('ask an admin');
    expect(await page.getByRole('button', { name: 'E-mail me a sign-in link' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Use an e-mailed link instead' }).count()).toBe(0);
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    await context.close();
  });

  it('an invitation link stays valid 7 days, and the member page says so', async () => {
    const { page } = admin;
    await page.goto(`${web}/admin/members`);
    await page.getByRole('button', { name: 'Bo', exact: true }).click();
    await page.getByRole('button', { name: 'Invite Bo' }).click();
    const status = page.getByRole('status').filter({ hasText: 'hand this link' });
    await expect.poll(() => status.textContent()).toContain('valid 7 days, until');
    expect(await status.textContent()).not.toContain('15 minutes');
    const link = await page.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(new RegExp(`^${web}/sign-in/link#token=`));
  });

  it('forms name the field in words, and throttling says when to try again, once', async () => {
    const { page } = admin;
    await page.goto(`${web}/admin/members`);
    await page.getByRole('button', { name: 'New member' }).click();
    const form = page.getByRole('form', { name: 'New member' });
    await form.getByLabel('First name').fill('A'.repeat(101));
    await form.getByRole('button', { name: 'Create member' }).click();
    const alert = form.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('First name: at most 100 characters.');

    const context = await browser.newContext({ locale: 'en-GB' });
    const signIn = await context.newPage();
    await signIn.goto(`${web}/sign-in`);
    await signIn.getByLabel('E-mail address').fill('bo@new-user.example');
    await signIn.getByLabel('Password').fill('not the password at all');
    const error = signIn.locator('#sign-in-error');
    for (let i = 0; i < 5; i++) {
      await signIn.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => error.textContent()).toMatch(/.+/);
    }
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => error.textContent()).toBe('Too many attempts. Try again in 15 minutes.');
    await context.close();
  });

  it('a plain member who opens /admin gets a page for admins only, and the console is not loaded', async () => {
    const { page } = member;
    const scripts: string[] = [];
    const track = (r: { url(): string }) => {
      if (r.url().endsWith('.js')) scripts.push(r.url());
    };
    page.on('request', track);
    await page.goto(`${web}/admin/members`);
    await expect.poll(() => page.getByRole('heading', { name: 'For admins only' }).count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Admin' }).count()).toBe(0);
    page.off('request', track);
    expect(scripts.filter((s) => /\/assets\/admin-/.test(s))).toEqual([]);
    await page.getByRole('link', { name: 'Go to my page' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Hello, Ada' }).count()).toBe(1);
  });

  it('"Switch account" shows only when the address has a member in another account', async () => {
    const { page } = admin;
    await page.goto(`${web}/admin`);
    const nav = page.getByRole('navigation', { name: 'Admin' });
    await expect.poll(() => nav.getByRole('link', { name: 'Members' }).count()).toBe(1);
    expect(await nav.getByRole('button', { name: 'Switch account' }).count()).toBe(0);
    const init = await runProcess([hubCli, 'init', '--account', 'Second space', '--email', ownerEmail], {
      HUB_DATA_DIR: hub.dataDir,
      LOG_LEVEL: 'silent',
    });
    expect(init.code).toBe(0);
    const second = JSON.parse(init.stdout.trim().split('\n').pop()!);
    expect(
      (await hub.api('PUT', '/user/password', { password: 'second-space-pine-5512' }, second.token)).status,
    ).toBe(204);
    await page.reload();
    await expect.poll(() => nav.getByRole('button', { name: 'Switch account' }).count()).toBe(1);
  });

  it('a member books from the free/busy view in the space’s time zone, whatever the phone’s', async () => {
    const { page } = member;
    const tomorrow = addDays(todayIn(zone), 1);
    // Bo has 14:00-15:00 (Tokyo) that day: busy, without his name.
    const boKey = (await hub.api('POST', '/api-keys', { member: ids.bo })).body;
    const boToken = (await hub.api('GET', `/api-keys/${boKey.id}/token`)).body.token;
    const boPkg = (await hub.api('GET', '/packages')).body[0].id;
    await hub.api('POST', `/members/${ids.bo}/packages`, { package: boPkg });
    const tokyo = (time: string) => new Date(`${tomorrow}T${time}:00+09:00`).toISOString();
    expect(
      (
        await hub.api(
          'POST',
          '/bookings',
          { resource: ids.laser, fromDateTime: tokyo('14:00'), untilDateTime: tokyo('15:00') },
          boToken,
        )
      ).status,
    ).toBe(201);

    await page.goto(`${web}/`);
    const form = page.getByRole('form', { name: 'New booking' });
    await expect.poll(() => form.getByLabel(`From (${zone})`).count()).toBe(1);
    await expect.poll(() => form.getByLabel('Day').inputValue()).toBe(todayIn(zone));
    await form.getByLabel('Day').fill(tomorrow);
    const view = page.getByRole('list', { name: 'Free and busy times of Laser cutter' });
    await expect.poll(() => view.textContent()).toContain('14:00–15:00booked');
    expect(await page.getByText('The space is open at all times.').count()).toBe(1);
    expect(await view.textContent()).not.toContain('Bo');

    // A free hour of the view goes into the form in one tap.
    await view.getByRole('button', { name: 'Choose 15:00' }).click();
    expect(await form.getByLabel(`From (${zone})`).inputValue()).toBe('15:00');
    expect(await form.getByLabel(`Until (${zone})`).inputValue()).toBe('16:00');
    await form.getByLabel(`From (${zone})`).fill('10:00');
    await form.getByLabel(`Until (${zone})`).fill('11:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Booked' }).textContent())
      .toContain('10:00–11:00');
    const mine = (await hub.api('GET', `/bookings?member=${ids.ada}&state=confirmed`)).body;
    expect(mine).toHaveLength(1);
    // 10:00 in Tokyo, not 10:00 in New York.
    expect(mine[0].fromDateTime).toBe(tokyo('10:00'));
    await expect.poll(() => view.textContent()).toContain('10:00–11:00booked by you');
    // The phone-sized page with the form and the view fits its screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expect
      .poll(() =>
        page.getByRole('button', { name: /^Cancel booking of Laser cutter on / }).getAttribute('aria-label'),
      )
      .toContain('10:00–11:00');
  });

  it('a space without opening hours is open at all times; hours that close it now ask first', async () => {
    const { page } = admin;
    await page.goto(`${web}/admin/spaces`);
    const hours = page.getByRole('form', { name: 'Opening hours' });
    await expect.poll(() => hours.getByText('open at all times', { exact: true }).count()).toBe(7);
    expect(await hours.getByText('closed', { exact: true }).count()).toBe(0);

    // Open only the day after tomorrow: closed at this moment.
    const day = weekdays[weekdayIndex(addDays(todayIn(zone), 2))];
    await hours.getByRole('button', { name: `Add hours on ${day}` }).click();
    await hours.getByRole('button', { name: 'Save opening hours' }).click();
    const warning = hours.getByRole('alert');
    await expect.poll(() => warning.textContent()).toContain('close');
    expect(await warning.textContent()).toContain('members are refused at every door and machine');
    await hours.getByRole('button', { name: 'Keep editing' }).click();
    expect((await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body).toEqual([]);
    await hours.getByRole('button', { name: 'Save opening hours' }).click();
    await hours.getByRole('button', { name: /^Save and close .* now$/ }).click();
    await saveThroughAccessPreview(hours);
    await expect.poll(() => hours.getByRole('status').textContent()).toBe('Opening hours saved.');
    expect((await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body).toHaveLength(1);
    expect(await hours.getByText('closed', { exact: true }).count()).toBe(6);
    // Open again for the machine tests.
    await hub.api('PUT', `/spaces/${ids.space}/opening-hours`, []);
  });

  it('a running machine shows only Switch off; a door’s Unlocked notice ends when it relocks', async () => {
    const { page } = member;
    await page.goto(`${web}/r/${ids.laser}?c=${codes.laser}`);
    await page.getByRole('button', { name: 'Switch on' }).click();
    const session = page.getByRole('region', { name: 'Your session' });
    await expect.poll(() => session.getByRole('button', { name: 'Switch off' }).count()).toBe(1);
    await expect.poll(() => page.getByTestId('elapsed').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Switch on' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Verdict' }).count()).toBe(0);
    expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out', 'Switch off']);
    await page.getByRole('button', { name: 'Switch off' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Switch on' }).count()).toBe(1);

    await page.goto(`${web}/r/${ids.door}?c=${codes.door}`);
    await page.getByRole('button', { name: 'Unlock' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Unlocked' });
    await expect.poll(() => notice.count()).toBe(1);
    await eventually(() => doorAgent.relay() === 'on', 5_000, 'door open');
    // The pulse is 2 s: then the door relocks and the notice goes.
    await eventually(() => doorAgent.relay() === 'off', 8_000, 'door relocked');
    await expect.poll(() => notice.count(), { timeout: 5_000 }).toBe(0);
  });

  it('when the hub cannot be reached both pages say so, disable their buttons, and recover', async () => {
    await admin.page.goto(`${web}/admin`);
    await member.page.goto(`${web}/`);
    const book = member.page.getByRole('button', { name: 'Book', exact: true });
    await expect.poll(() => book.isEnabled()).toBe(true);
    const { dataDir, httpPort, mqttPort, token } = hub;
    await hub.proc.stop();

    for (const page of [member.page, admin.page]) {
      const alert = page.getByRole('alert').filter({ hasText: 'The hub cannot be reached' });
      await expect.poll(() => alert.count(), { timeout: 15_000 }).toBe(1);
    }
    await expect.poll(() => book.isDisabled()).toBe(true);
    expect(await member.page.getByRole('button', { name: 'Sign out' }).isEnabled()).toBe(true);
    await saveScreenshot(member.page, 'member-hub-unreachable');

    hub = await startHubProcess({ dataDir, httpPort, mqttPort, token, env: { HUB_PUBLIC_URL: web } });
    for (const page of [member.page, admin.page]) {
      const alert = page.getByRole('alert').filter({ hasText: 'The hub cannot be reached' });
      await expect.poll(() => alert.count(), { timeout: 15_000 }).toBe(0);
    }
    await expect.poll(() => book.isEnabled()).toBe(true);
  }, 60_000);
});
