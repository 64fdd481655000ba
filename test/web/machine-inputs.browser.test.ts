import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  choosePassword,
  freePort,
  launchChromium,
  saveScreenshot,
} from '../support/browser.js';
import { startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll } from '../support/processes.js';

describe.runIf(browserTestsEnabled())('machine inputs in the web app (Chromium, real hub and agents)', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await stopAll();
  });

  it('the member sees the idle warning count down; the dashboard lists a door held open', async () => {
    const httpPort = await freePort();
    const web = `http://127.0.0.1:${httpPort}`;
    const hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web } });
    const me = (await hub.api('GET', '/user/me')).body;
    const password = 'drill-press-oak-7731';
    expect((await hub.api('PUT', '/user/password', { password })).status).toBe(204);
    const bridge = async (resource: { id: number }) => {
      await hub.api('PUT', `/resources/${resource.id}/bridge`, {});
      return (await hub.api('GET', `/resources/${resource.id}/bridge/api-key`)).body.apiKey as string;
    };
    const laser = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Laser',
        controlType: 'machine',
        idleTimeoutSeconds: 1,
        idleWarningSeconds: 60,
      })
    ).body;
    const door = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Workshop door', controlType: 'door' })
    ).body;
    const mqttUrl = `mqtt://127.0.0.1:${hub.mqttPort}`;
    const laserAgent = await startAgentProcess({
      hubUrl: mqttUrl,
      resourceId: laser.id,
      apiKey: await bridge(laser),
      controlType: 'machine',
      inputs: [{ name: 'busy', kind: 'busy' }],
      initialInputs: { busy: false },
    });
    const doorAgent = await startAgentProcess({
      hubUrl: mqttUrl,
      resourceId: door.id,
      apiKey: await bridge(door),
      controlType: 'door',
      inputs: [{ name: 'door', kind: 'doorContact', label: 'Back door contact', heldOpenSeconds: 1 }],
      initialInputs: { door: true },
    });
    await eventually(
      async () =>
        (await hub.api('GET', `/resources/${door.id}/access-check`)).body.status.inputs[0]?.heldOpen,
      10_000,
      'the door held open',
    );

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${web}/admin`);
    await choosePassword(page);
    await page.getByLabel('E-mail address').fill(me.emailAddress);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alerts = page.getByRole('list', { name: 'Alerts' });
    await expect
      .poll(() => alerts.textContent(), { timeout: 15_000 })
      .toContain('Workshop door: Back door contact held open since');
    // Each card names its inputs' states.
    const card = (name: string) => page.getByRole('listitem', { name, exact: true }).getByTestId('inputs');
    await expect.poll(() => card('Laser').textContent(), { timeout: 10_000 }).toBe('busy: idle');
    await expect.poll(() => card('Workshop door').textContent()).toBe('Back door contact: held open');
    // Closed again: the alert goes.
    doorAgent.setInputs({ door: false });
    await expect.poll(() => alerts.textContent(), { timeout: 10_000 }).not.toContain('held open');

    // The owner's own session on the idle laser: its page counts down to the switch-off.
    expect((await hub.api('POST', `/resources/${laser.id}/switch-on`)).status).toBe(200);
    // On a phone, as members use it.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${web}/r/${laser.id}`);
    const warning = page.getByTestId('idle-warning');
    await expect
      .poll(() => warning.textContent(), { timeout: 15_000 })
      .toMatch(/^Switching off in \d+ s unless the machine is working\.$/);
    await saveScreenshot(page, 'member-idle-warning');
    // Working again: the warning goes, the machine stays on.
    laserAgent.setInputs({ busy: true });
    await expect.poll(() => warning.count(), { timeout: 10_000 }).toBe(0);
    expect(laserAgent.relay()).toBe('on');
  }, 90_000);
});
