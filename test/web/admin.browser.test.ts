import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, startConsoleHub } from '../support/admin-console.js';
import {
  browserTestsEnabled,
  desktop,
  freePort,
  launchChromium,
  phone,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { type AgentProcess, type HubProcess, startOnlineDoorAgent } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { agentCli, runProcess, startProcess, tempDir } from '../support/processes.js';

describe.runIf(browserTestsEnabled())('admin console in Chromium (real hub and agents)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  const agents: Record<string, AgentProcess> = {};
  const ids = { front: 0, back: 0, workshop: 0, ada: 0, bo: 0 };
  const keys = { back: '' };
  let owner: { firstName: string; lastName: string | null; emailAddress: string };
  let admin: { context: BrowserContext; page: Page };
  const adminPassword = 'drill-press-oak-7731';
  const memberPassword = 'band-saw-maple-2290';

  const shot = saveScreenshot;
  const signIn = (page: Page, email: string, password: string, next: string) =>
    signInWithPassword(page, web, email, password, next);
  const card = (page: Page, name: string) => page.getByRole('listitem', { name, exact: true });
  const bridgeState = (page: Page, name: string) =>
    card(page, name).getByTestId('bridge-state').textContent();
  const feed = (page: Page) => page.getByRole('list', { name: 'Activity feed' });

  beforeAll(async () => {
    // Webhooks may go to loopback here: the test's receiver that refuses every delivery.
    const started = await startConsoleHub(adminPassword, { HUB_WEBHOOK_ALLOW_INSECURE: '1' });
    ({ hub, web } = started);
    const me = started.owner;
    owner = me;
    const door = async (name: string) => {
      const r = (
        await hub.api('POST', '/resources', { space: me.space, name, controlType: 'door', pulseSeconds: 2 })
      ).body;
      await hub.api('PUT', `/resources/${r.id}/bridge`, {});
      const key = (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey as string;
      return { id: r.id as number, key };
    };
    const front = await door('Front door');
    const back = await door('Back door');
    ids.front = front.id;
    ids.back = back.id;
    keys.back = back.key;
    ids.workshop = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Workshop door', controlType: 'door' })
    ).body.id;
    [agents.front, agents.back] = await Promise.all([
      startOnlineDoorAgent(hub, front.id, front.key),
      startOnlineDoorAgent(hub, back.id, back.key),
    ]);
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body.id;
    await hub.api('POST', `/packages/${pkg}/permissions`, { type: 'everything' });
    const member = async (firstName: string, lastName: string, emailAddress: string) => {
      const m = (await hub.api('POST', '/members', { firstName, lastName, emailAddress })).body;
      await hub.api('POST', `/members/${m.id}/packages`, { package: pkg });
      return m.id as number;
    };
    ids.ada = await member('Ada', 'Lovelace', 'ada@admin-test.example');
    ids.bo = await member('Bo', 'Plain', 'bo@admin-test.example');
    // Bo signs in with a password set through an API token of Bo's own.
    const boKey = (await hub.api('POST', '/api-keys', { member: ids.bo })).body;
    const boToken = (await hub.api('GET', `/api-keys/${boKey.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: memberPassword }, boToken)).status).toBe(204);
    browser = await launchChromium();
    admin = await desktop(browser);
  }, 120_000);

  consoleTestHooks('admin-test', () => ({ browser, pages: admin?.page }));

  it('an admin signs in and sees every bridge online, with heartbeat and agent version', async () => {
    const { page } = admin;
    await signIn(page, owner.emailAddress, adminPassword, '/admin');
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    // The top bar offers admins the console; no refusal is shown to them.
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count(),
    ).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    await expect.poll(() => bridgeState(page, 'Front door')).toBe('Online');
    await expect.poll(() => bridgeState(page, 'Back door')).toBe('Online');
    expect(await bridgeState(page, 'Workshop door')).toBe('No bridge');
    const facts = await card(page, 'Front door').locator('dl').textContent();
    expect(facts).toMatch(/Agent\d+\.\d+\.\d+/);
    expect(facts).not.toContain('Last heartbeatnever');
  });

  it('an agent killed shows offline (and in the feed), and online again after a restart', async () => {
    const { page } = admin;
    await agents.back.proc.stop('SIGKILL');
    // The broker notices a dead agent after 1.5 keep-alives (2 s here); the page follows at once.
    await expect.poll(() => bridgeState(page, 'Back door'), { timeout: 15_000 }).toBe('Offline');
    await expect.poll(() => feed(page).textContent()).toContain('Back door Bridge offline');
    agents.back = await startOnlineDoorAgent(hub, ids.back, keys.back, agents.back.dir);
    await expect.poll(() => bridgeState(page, 'Back door'), { timeout: 10_000 }).toBe('Online');
    await expect.poll(() => feed(page).textContent()).toContain('Back door Bridge online');
  });

  it('remote unlock switches the simulated relay, and the feed shows who did it', async () => {
    const { page } = admin;
    expect(agents.front.relay()).toBe('off');
    await page.getByRole('button', { name: 'Unlock Front door' }).click();
    await eventually(() => agents.front.relay() === 'on', 5_000, 'front door relay on');
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Unlocked Front door' }).isVisible())
      .toBe(true);
    const name = `${owner.firstName} ${owner.lastName ?? ''}`.trim();
    await expect.poll(() => feed(page).textContent()).toContain(`Front door Allowed: ${name}`);
  });

  it('a denied tap appears in the feed with its reason and in the unknown cards, assignable with one click', async () => {
    const { page } = admin;
    expect((await agents.back.tap('BADC0FFEE1')).code).toBe(0);
    expect(agents.back.relay()).toBe('off');
    await expect
      .poll(() => feed(page).textContent())
      .toContain('Back door Denied: unknown card (card BADC0FFEE1)');
    await shot(page, 'admin-dashboard');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Key cards' }).click();
    const unknown = page.getByRole('list', { name: 'Unknown cards' });
    await expect.poll(() => unknown.textContent()).toContain('BADC0FFEE1');
    await page.getByLabel('Find a member (name, e-mail, member number)').fill('Bo');
    await expect.poll(() => page.getByTestId('member-key').textContent()).toBe('Bo Plain has no card.');
    await page.getByRole('button', { name: 'Assign BADC0FFEE1 to Bo Plain' }).click();
    await expect
      .poll(() => page.getByTestId('member-key').textContent())
      .toBe("Bo Plain's card: BADC0FFEE1 (em4102, active)");
    await expect.poll(() => unknown.textContent()).not.toContain('BADC0FFEE1');
    expect((await hub.api('GET', `/members/${ids.bo}/key`)).body.token).toBe('BADC0FFEE1');
  });

  it('assigning a card by tapping at a reader ends with the card on the member, who then opens the door', async () => {
    const { page } = admin;
    await page.getByLabel('Find a member (name, e-mail, member number)').fill('Lovelace');
    await expect.poll(() => page.getByTestId('member-key').textContent()).toBe('Ada Lovelace has no card.');
    await page.getByLabel('Reader').selectOption({ label: 'Front door' });
    await page.getByRole('button', { name: 'Assign by tapping' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/Tap the card at Front door now \(1?\d s left\)/);
    await shot(page, 'admin-key-cards');
    await agents.front.tap('0A1B2C3D4E');
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('Card 0A1B2C3D4E assigned to Ada Lovelace.');
    await expect
      .poll(() => page.getByTestId('member-key').textContent())
      .toBe("Ada Lovelace's card: 0A1B2C3D4E (em4102, active)");
    await eventually(() => agents.front.relay() === 'off', 10_000, 'front door closed again');
    expect((await agents.front.tap('0A1B2C3D4E')).code).toBe(0);
    await eventually(() => agents.front.relay() === 'on', 5_000, 'front door opened by the new card');
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect
      .poll(() => feed(page).textContent())
      .toContain('Front door Allowed: Ada Lovelace (card 0A1B2C3D4E)');
    expect(await feed(page).textContent()).toContain('Front door Key assigned to Ada Lovelace');
  }, 60_000);

  it('pairing a new Pi with the shown command brings its bridge online', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Pair a bridge for Workshop door' }).click();
    const command = await page.getByLabel('Pairing command').inputValue();
    const match = command.match(/^makerspace-agent pair (\S+) ([A-Z0-9-]+)$/);
    expect(match?.[1]).toBe(web);
    await shot(page, 'admin-pairing');
    const dir = tempDir('pi-');
    const paired = await runProcess(
      [agentCli, 'pair', match![1], match![2], '--dir', dir, '--data-dir', join(dir, 'data')],
      {},
    );
    expect(paired.code).toBe(0);
    const configFile = join(dir, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    writeFileSync(configFile, JSON.stringify({ ...config, keepaliveSeconds: 2 }));
    const agent = startProcess([agentCli, 'run', '--config', configFile], {});
    await agent.waitFor(/connected to the hub/);
    await expect.poll(() => bridgeState(page, 'Workshop door'), { timeout: 10_000 }).toBe('Online');
    await expect.poll(() => feed(page).textContent()).toContain('Workshop door Bridge paired by');
  });

  it('a failing webhook is an alert on the dashboard', async () => {
    const { page } = admin;
    // Nothing listens on this loopback port: every delivery fails at once.
    const deadPort = await freePort();
    const hook = await hub.api('POST', '/webhooks', {
      url: `http://127.0.0.1:${deadPort}/hook`,
      label: 'Accounting sync',
      categories: ['resourceLog'],
    });
    expect(hook.status).toBe(201);
    expect((await agents.back.tap('FEEDFACE02')).code).toBe(0);
    await eventually(
      async () => (await hub.api('GET', `/webhooks/${hook.body.id}`)).body.failingSince !== null,
      15_000,
      'webhook failing',
    );
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Key cards' }).click();
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Dashboard' }).click();
    await expect
      .poll(() => page.getByRole('list', { name: 'Alerts' }).textContent())
      .toContain('Webhook Accounting sync is failing since');
    await hub.api('DELETE', `/webhooks/${hook.body.id}`);
  });

  it('members: server-side search (name, card id), create, edit, invite with the link shown without SMTP', async () => {
    const { page } = admin;
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Members', level: 1 }).isVisible()).toBe(true);
    const search = page.getByLabel('Search by name, e-mail, member number or card id');
    const rows = () => page.getByRole('table', { name: 'Members' }).getByRole('row').allTextContents();
    await search.fill('Lovelace');
    await expect.poll(async () => (await rows()).slice(1)).toEqual([expect.stringContaining('Ada Lovelace')]);
    // The card assigned by tapping finds its member.
    await search.fill('0a1b2c3d4e');
    await expect.poll(async () => (await rows()).slice(1)).toEqual([expect.stringContaining('Ada Lovelace')]);

    await page.getByRole('button', { name: 'New member' }).click();
    const form = page.getByRole('form', { name: 'New member' });
    await form.getByLabel('First name').fill('Cy');
    await form.getByLabel('Last name').fill('Newton');
    await form.getByLabel('E-mail address').fill('cy@admin-test.example');
    await form.getByRole('button', { name: 'Create member' }).click();
    const edit = page.getByRole('form', { name: 'Edit Cy Newton' });
    await expect.poll(() => edit.isVisible()).toBe(true);
    await edit.getByLabel('Member number').fill('M-77');
    await edit.getByRole('button', { name: 'Save member' }).click();
    await search.fill('M-77');
    await expect.poll(async () => (await rows()).slice(1)).toEqual([expect.stringContaining('Cy Newton')]);
    const cy = (await hub.api('GET', '/members?q=M-77')).body[0];
    expect(cy).toMatchObject({ firstName: 'Cy', lastName: 'Newton', memberNumber: 'M-77' });

    await page.getByRole('button', { name: 'Invite Cy Newton' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain('No mail server is set up: hand this link to the member');
    const link = await page.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(new RegExp(`^${web}/sign-in/link#token=`));
    const cyBrowser = await desktop(browser);
    await cyBrowser.page.goto(link);
    await expect
      .poll(() => cyBrowser.page.getByRole('heading', { name: 'Welcome, Cy' }).isVisible())
      .toBe(true);
    await cyBrowser.context.close();
  });

  it('on a phone every admin page fits the width: list rows stack, each value led by its column', async () => {
    const mobile = await phone(browser);
    const { page } = mobile;
    await signIn(page, owner.emailAddress, adminPassword, '/admin/resources');
    const pages: [string, string][] = [
      ['/admin', 'Dashboard'],
      ['/admin/members', 'Members'],
      ['/admin/packages', 'Packages'],
      ['/admin/trainings', 'Trainings'],
      ['/admin/keys', 'Key cards'],
      ['/admin/resources', 'Resources'],
      ['/admin/activity', 'Activity'],
      ['/admin/spaces', 'Spaces'],
      ['/admin/bookings', 'Bookings'],
      ['/admin/billing', 'Billing'],
      ['/admin/reports', 'Reports'],
      ['/admin/webhooks', 'Webhooks'],
    ];
    const overflow: string[] = [];
    for (const [path, heading] of pages) {
      await page.goto(`${web}${path}`);
      await expect.poll(() => page.getByRole('heading', { name: heading, level: 1 }).isVisible()).toBe(true);
      await page.waitForLoadState('networkidle');
      // Against the phone's width, not innerWidth: a mobile browser zooms out to fit a wider page.
      const screen = page.viewportSize()?.width ?? 360;
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > screen) overflow.push(`${path}: ${wide} px on a ${screen} px screen`);
    }
    expect(overflow).toEqual([]);
    // The members' list: a row is a block, its values named by their columns; the table and its
    // header stay for screen readers.
    await page.goto(`${web}/admin/members`);
    const row = page.getByRole('row').filter({ hasText: 'Ada Lovelace' });
    await expect.poll(() => row.isVisible()).toBe(true);
    const cell = row.getByRole('cell').filter({ hasText: 'ada@admin-test.example' });
    expect(await cell.evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"E-mail"');
    expect(await page.getByRole('columnheader', { name: 'E-mail' }).count()).toBe(1);
    await page.goto(`${web}/admin/resources`);
    await expect.poll(() => page.getByRole('row', { name: 'Front door' }).isVisible()).toBe(true);
    await shot(page, 'admin-phone-resources');
    await mobile.context.close();
  });

  it('a member who opens an admin URL gets the admins-only page, and the API refuses them too', async () => {
    const bo = await desktop(browser);
    await signIn(bo.page, 'bo@admin-test.example', memberPassword, '/admin/keys');
    // No admin link for members, and a page that says the console is for admins.
    expect(await bo.page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await expect.poll(() => bo.page.getByRole('heading', { name: 'For admins only' }).count()).toBe(1);
    const statuses = await bo.page.evaluate(async (door) => {
      const csrf = (await (await fetch('/api/v1/user/sessions/current')).json()).csrfToken;
      const post = (path: string, body: unknown) =>
        fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify(body),
        }).then((r) => r.status);
      return {
        unknownCards: (await fetch('/api/v1/unknown-cards')).status,
        pairing: await post(`/api/v1/resources/${door}/bridge/pairing-codes`, {}),
      };
    }, ids.front);
    expect(statuses).toEqual({ unknownCards: 403, pairing: 403 });
    // Bo's own feed carries no one's logs.
    await bo.context.close();
  });
});
