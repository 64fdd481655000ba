import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeBrowserAndProcesses,
  type ConsoleHub,
  ownerDesktop,
  screenshotsOnFailure,
  startConsoleHub,
} from '../support/admin-console.js';
import {
  browserTestsEnabled,
  launchChromium,
  phone,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { type AgentProcess, startAgentProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';

/** A small photo as a phone camera would hand it over (a PNG here: the page sends it as it is). */
function photo(): Buffer {
  const png = new PNG({ width: 64, height: 48 });
  for (let i = 0; i < 64 * 48; i++) png.data.set([200, 40, 30, 255], i * 4);
  return PNG.sync.write(png);
}

describe.runIf(browserTestsEnabled())('problem reports in Chromium (real hub and agent)', () => {
  let started: ConsoleHub;
  let browser: Browser;
  let laserAgent: AgentProcess;
  let mia: { context: BrowserContext; page: Page };
  let max: { context: BrowserContext; page: Page };
  let admin: { context: BrowserContext; page: Page };
  const laser = { id: 0, code: '' };
  let tinaEmail = '';
  const password = 'kerf-acrylic-5521-fan';

  /** A member with the full package and a password, who may sign in on the web app. */
  async function member(firstName: string) {
    const { hub } = started;
    const m = (
      await hub.api('POST', '/members', {
        firstName,
        emailAddress: `${firstName.toLowerCase()}@problems.example`,
      })
    ).body;
    const pkg = (await hub.api('GET', '/packages')).body[0].id;
    expect((await hub.api('POST', `/members/${m.id}/packages`, { package: pkg })).status).toBe(201);
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    const token = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password }, token)).status).toBe(204);
    return m.emailAddress as string;
  }
  async function onPhone(email: string) {
    const p = await phone(browser);
    p.page.setDefaultTimeout(15_000);
    await signInWithPassword(p.page, started.web, email, password, `/r/${laser.id}?c=${laser.code}`);
    return p;
  }
  const verdict = (page: Page) => page.getByTestId('verdict');

  beforeAll(async () => {
    started = await startConsoleHub(password.replace('fan', 'owner'));
    const { hub, owner } = started;
    const type = (await hub.api('POST', '/resource-types', { name: 'Laser cutters' })).body.id;
    const r = (
      await hub.api('POST', '/resources', {
        space: owner.space,
        name: 'Laser cutter',
        controlType: 'machine',
        type,
      })
    ).body;
    laser.id = r.id;
    laser.code = r.switchOnCode;
    await hub.api('PUT', `/resources/${r.id}/bridge`, {});
    const key = (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey;
    laserAgent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: r.id,
      apiKey: key,
      controlType: 'machine',
    });
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body.id;
    await hub.api('POST', `/packages/${pkg}/permissions`, { type: 'everything' });
    const miaEmail = await member('Mia');
    const maxEmail = await member('Max');
    tinaEmail = await member('Tina');
    browser = await launchChromium();
    mia = await onPhone(miaEmail);
    max = await onPhone(maxEmail);
    admin = await ownerDesktop(browser, started, '/admin', 15_000);
  }, 120_000);

  afterEach(({ task }) =>
    screenshotsOnFailure(task, 'problem-reports', { mia: mia?.page, max: max?.page, admin: admin?.page }),
  );
  afterAll(() => closeBrowserAndProcesses(browser), 60_000);

  it('a member reports an unsafe laser; the next member is told it is out of use; an admin resolves it and it works again', async () => {
    // Mia at the laser: it works, but its lid switch does not.
    const { page } = mia;
    await expect.poll(() => verdict(page).textContent()).toBe('You may use it now.');
    await page.getByRole('button', { name: 'Report a problem' }).click();
    const form = page.getByRole('form', { name: 'Report a problem' });
    await form
      .getByLabel('What is wrong?')
      .fill('The lid switch is broken: the laser fires with the lid open.');
    await form.getByLabel(/^Unsafe/).check();
    const file = form.getByLabel('Photo (optional)');
    expect(await file.getAttribute('accept')).toBe('image/*');
    expect(await file.getAttribute('capture')).not.toBeNull();
    await file.setInputFiles({ name: 'lid.png', mimeType: 'image/png', buffer: photo() });
    await saveScreenshot(page, 'member-problem-form');
    await form.getByRole('button', { name: 'Send report' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Thank you' }).textContent())
      .toBe('Thank you. The machine is now out of use until someone has checked it.');
    await expect.poll(() => verdict(page).textContent()).toBe('This machine is locked.');
    await saveScreenshot(page, 'member-problem-report');
    const [report] = (await started.hub.api('GET', '/problem-reports?state=open')).body;
    expect(report).toMatchObject({
      severity: 'unsafe',
      lockedResource: true,
      photo: { contentType: 'image/png' },
    });

    // Max, next at the laser: out of use, and why; the button does nothing.
    await max.page.reload();
    await expect.poll(() => verdict(max.page).textContent()).toBe('This machine is locked.');
    const reason = await max.page.getByTestId('lock-reason').textContent();
    expect(reason).toContain(`problem report #${report.id}`);
    expect(reason).toContain('The lid switch is broken');
    expect(await max.page.getByRole('button', { name: 'Switch on' }).isDisabled()).toBe(true);

    // The admin sees it on the resource's page and on the dashboard, with the photo, and resolves it there.
    const a = admin.page;
    await a.goto(`${started.web}/admin/resources`);
    await a
      .getByRole('table', { name: 'Doors and machines' })
      .getByRole('button', { name: 'Laser cutter' })
      .click();
    const onResource = a.getByRole('region', { name: 'Resource details' }).getByRole('listitem', {
      name: `Problem report #${report.id}`,
    });
    await expect.poll(() => onResource.textContent()).toContain('The lid switch is broken');
    await a.goto(`${started.web}/admin`);
    const item = a.getByRole('list', { name: 'Open problem reports' }).getByRole('listitem', {
      name: `Problem report #${report.id}`,
    });
    await expect.poll(() => item.textContent()).toContain('reported by Mia');
    expect(await item.textContent()).toContain('Out of use');
    await expect
      .poll(() => item.getByRole('img').evaluate((img) => (img as HTMLImageElement).naturalWidth))
      .toBe(64);
    await item.getByLabel('What was done').fill('Replaced the lid switch and tested it');
    await saveScreenshot(a, 'admin-problem-reports');
    await item.getByRole('button', { name: 'Resolve' }).click();
    await expect
      .poll(() => a.getByRole('status').filter({ hasText: 'Resolved' }).textContent())
      .toBe(`Resolved problem report #${report.id} (Laser cutter). Laser cutter is in use again.`);
    await expect.poll(() => item.count()).toBe(0);

    // Max again: the laser works.
    await max.page.reload();
    await expect.poll(() => verdict(max.page).textContent()).toBe('You may use it now.');
    await max.page.getByRole('button', { name: 'Switch on' }).click();
    await eventually(() => laserAgent.relay() === 'on', 10_000, 'laser relay on');
    await max.page.getByRole('button', { name: 'Switch off' }).click();
    await eventually(() => laserAgent.relay() === 'off', 10_000, 'laser relay off');
    const resolved = (await started.hub.api('GET', `/problem-reports/${report.id}`)).body;
    expect(resolved).toMatchObject({ state: 'resolved', unlockedResource: true });
  }, 120_000);
  it('an admin makes Tina maintainer of the lasers; she resolves a report from the machine page, where the reporter sees it open', async () => {
    const a = admin.page;
    await a.goto(`${started.web}/admin/resources`);
    await a.getByLabel('Add a maintainer of Laser cutters').fill('Tina');
    await a.getByRole('button', { name: 'Make Tina maintainer of Laser cutters' }).click();
    await expect
      .poll(() => a.getByRole('list', { name: 'Maintainers of Laser cutters' }).textContent())
      .toContain('Tina');

    const { page } = mia;
    await page.reload();
    await page.getByRole('button', { name: 'Report a problem' }).click();
    const form = page.getByRole('form', { name: 'Report a problem' });
    await form.getByLabel('What is wrong?').fill('Exhaust fan does not start.');
    await form.getByLabel(/^Unsafe/).check();
    await form.getByRole('button', { name: 'Send report' }).click();
    await expect.poll(() => verdict(page).textContent()).toBe('This machine is locked.');
    const mine = page.getByRole('list', { name: 'Open problem reports of this machine' });
    await expect.poll(() => mine.textContent()).toContain('reported by you');
    expect(await mine.getByRole('button', { name: 'Resolve' }).count()).toBe(0);

    const tina = await onPhone(tinaEmail);
    try {
      const t = tina.page;
      await expect.poll(() => verdict(t).textContent()).toBe('This machine is locked.');
      const open = t.getByRole('list', { name: 'Open problem reports of this machine' });
      await expect.poll(() => open.textContent()).toContain('reported by Mia');
      await open.getByLabel('What was done').fill('Fan fuse replaced');
      await saveScreenshot(t, 'member-maintainer-resolves');
      await open.getByRole('button', { name: 'Resolve' }).click();
      await expect.poll(() => verdict(t).textContent()).toBe('You may use it now.');
      await expect.poll(() => open.count()).toBe(0);
    } finally {
      await tina.context.close();
    }
    const [last] = (await started.hub.api('GET', '/problem-reports?state=resolved')).body;
    expect(last).toMatchObject({ resolutionNote: 'Fan fuse replaced', unlockedResource: true });
    expect(last._embedded.resolvedBy.firstName).toBe('Tina');
  }, 120_000);
});
