import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  freePort,
  launchChromium,
  phone,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { startHubProcess } from '../support/e2e.js';
import { stopAll } from '../support/processes.js';

describe.runIf(browserTestsEnabled())(
  'a trainer records an induction from the machine page (Chromium, real hub)',
  () => {
    let browser: Browser | undefined;
    afterAll(async () => {
      await browser?.close();
      await stopAll();
    });

    it('the trainee taps their card at the laser, and the trainer’s phone says it is recorded', async () => {
      const httpPort = await freePort();
      const web = `http://127.0.0.1:${httpPort}`;
      const hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web } });
      const me = (await hub.api('GET', '/user/me')).body;
      const laser = (
        await hub.api('POST', '/resources', { space: me.space, name: 'Laser cutter', requiresTraining: true })
      ).body;
      await hub.api('PUT', `/resources/${laser.id}/bridge`, {});
      const bridgeKey = (await hub.api('GET', `/resources/${laser.id}/bridge/api-key`)).body.apiKey as string;
      const course = (
        await hub.api('POST', '/training-courses', { title: 'Laser safety', resources: [laser.id] })
      ).body;
      const member = async (firstName: string) =>
        (
          await hub.api('POST', '/members', {
            firstName,
            lastName: 'Maker',
            emailAddress: `${firstName.toLowerCase()}@trainer.example`,
          })
        ).body;
      const tina = await member('Tina');
      const mia = await member('Mia');
      await hub.api('PUT', `/members/${mia.id}/key`, { type: 'em4102', token: '5A5A000007' });
      expect(
        (await hub.api('POST', `/training-courses/${course.id}/trainers`, { member: tina.id })).status,
      ).toBe(201);
      const key = (await hub.api('POST', '/api-keys', { member: tina.id })).body;
      const tinaToken = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token as string;
      const password = 'lathe-spindle-oak-5521';
      expect((await hub.api('PUT', '/user/password', { password }, tinaToken)).status).toBe(204);

      browser = await launchChromium();
      const { page } = await phone(browser);
      await signInWithPassword(page, web, 'tina@trainer.example', password, `/r/${laser.id}`);
      await page.getByRole('button', { name: 'Train someone' }).click();
      await page.getByRole('button', { name: 'Trainee taps their card' }).click();
      await expect
        .poll(() => page.getByTestId('train-waiting').textContent(), { timeout: 10_000 })
        .toContain('tap their card');

      // Mia taps her card at the laser's reader (the bridge asks the hub, as a Pi would).
      const tap = await fetch(`${web}/api/v1/bridge/access`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bridgeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ keys: [{ type: 'em4102', token: '5A5A000007' }], configVersion: 0 }),
      });
      expect(await tap.json()).toMatchObject({
        type: 'message',
        messages: ['Training recorded for Mia Maker'],
      });
      await expect
        .poll(() => page.getByTestId('train-done').textContent(), { timeout: 10_000 })
        .toBe('Training recorded for Mia Maker.');
      await saveScreenshot(page, 'machine-train-someone');

      const trainings = (await hub.api('GET', `/members/${mia.id}/trainings`)).body;
      expect(trainings).toEqual([expect.objectContaining({ trainingCourse: course.id, signedBy: tina.id })]);
    });
  },
);
