import { connect as connectTcp } from 'node:net';
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, choosePassword, freePort, launchChromium } from '../support/browser.js';
import { startHubProcess } from '../support/e2e.js';
import { stopAll } from '../support/processes.js';

describe.runIf(browserTestsEnabled())(
  'a duplicate bridge device in the admin console (Chromium, real hub)',
  () => {
    let browser: Browser | undefined;
    const clients: mqtt.MqttClient[] = [];
    afterAll(async () => {
      for (const c of clients) c.end(true);
      await browser?.close();
      await stopAll();
    });

    it('two devices with one bridge key show as an alert and on the door, with both addresses', async () => {
      const httpPort = await freePort();
      const web = `http://127.0.0.1:${httpPort}`;
      const hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web } });
      const me = (await hub.api('GET', '/user/me')).body;
      const password = 'drill-press-oak-7731';
      expect((await hub.api('PUT', '/user/password', { password })).status).toBe(204);
      const door = (
        await hub.api('POST', '/resources', { space: me.space, name: 'Front door', controlType: 'door' })
      ).body;
      await hub.api('PUT', `/resources/${door.id}/bridge`, {});
      const key = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey as string;
      // The real Pi and a copy of its SD card, from two addresses, each reconnecting when cut off.
      const device = (from: string) => {
        const c = new mqtt.MqttClient(
          () => connectTcp({ host: '127.0.0.1', port: hub.mqttPort, localAddress: from }),
          {
            clientId: `bridge-${door.id}`,
            username: String(door.id),
            password: key,
            protocolVersion: 4,
            keepalive: 60,
            reconnectPeriod: 200,
            reconnectOnConnackError: true,
          },
        );
        c.on('error', () => {});
        clients.push(c);
        return c;
      };
      const real = device('127.0.0.1');
      await new Promise((resolve) => real.once('connect', resolve));
      device('127.0.0.9');

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
        .toContain('Front door: two devices use its bridge key; pair the real device again');
      const card = page.getByRole('listitem', { name: 'Front door', exact: true });
      await expect
        .poll(() => card.textContent())
        .toMatch(/Two devices use this key \(127\.0\.0\.[19] and 127\.0\.0\.[19]\)/);
    });
  },
);
