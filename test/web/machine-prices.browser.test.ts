import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleHub, type ConsoleHub, screenshotsOnFailure } from '../support/admin-console.js';
import { browserTestsEnabled, launchChromium, phone, signInWithPassword } from '../support/browser.js';
import { repoRoot, stopAll } from '../support/processes.js';

const shots = join(repoRoot, 'docs/screenshots');

describe.runIf(browserTestsEnabled())(
  'a machine page tells its price before switch-on (Chromium, real hub)',
  () => {
    let browser: Browser | undefined;
    let started: ConsoleHub;
    let page: Page | undefined;
    const ids = { laser: 0, drill: 0, ada: 0 };
    const codes = { laser: '', drill: '' };
    const password = 'kerf-width-0.2-mm-plywood';

    beforeAll(async () => {
      started = await startConsoleHub('owner-password-for-prices-1');
      const { hub } = started;
      const post = async (path: string, body: unknown) => {
        const res = await hub.api('POST', path, body);
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
        return res.body;
      };
      const space = started.owner.space;
      const laser = await post('/resources', {
        space,
        name: 'Laser cutter',
        controlType: 'machine',
        pricePerUsage: '1.50',
        pricePerTimeBusy: '12.00',
        pricePerTimeBusySeconds: 3600,
        pricingMinDurationSeconds: 900,
      });
      const drill = await post('/resources', { space, name: 'Drill press', controlType: 'machine' });
      ids.laser = laser.id;
      ids.drill = drill.id;
      codes.laser = laser.switchOnCode;
      codes.drill = drill.switchOnCode;

      const pkg = await post('/packages', { name: 'Makers monthly', recurringFee: '0' });
      await post(`/packages/${pkg.id}/permissions`, {
        type: 'resource',
        resource: ids.laser,
        usageFeeDiscountPercent: '20',
      });
      await post(`/packages/${pkg.id}/permissions`, { type: 'resource', resource: ids.drill });
      // A credit is made with defaults, then set: 10.00 once, for the laser's usage only.
      const credit = await post(`/packages/${pkg.id}/credits`, {});
      const changed = await hub.api('PUT', `/packages/${pkg.id}/credits/${credit.id}`, {
        lockVersion: credit.lockVersion,
        scope: 'usage',
        amount: '10.00',
        period: 'once',
        resources: [{ type: 'resource', resource: ids.laser }],
      });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);

      const ada = await post('/members', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@prices.example',
        allowLogin: true,
      });
      ids.ada = ada.id;
      await post(`/members/${ada.id}/packages`, { package: pkg.id });
      const key = await post('/api-keys', { member: ada.id });
      const token = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
      const set = await hub.api('PUT', '/user/password', { password }, token);
      expect(set.status).toBe(204);

      browser = await launchChromium();
      const member = await phone(browser);
      page = member.page;
      page.setDefaultTimeout(10_000);
      await signInWithPassword(page, started.web, 'ada@prices.example', password, '/');
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await stopAll();
    }, 60_000);
    afterEach(({ task }) => screenshotsOnFailure(task, 'machine-prices', page));

    it('shows the usage prices, the package discount and the credits that pay first', async () => {
      const p = page as Page;
      await p.goto(`${started.web}/r/${ids.laser}?c=${codes.laser}`);
      const price = p.getByRole('region', { name: 'Price' });
      await expect.poll(() => price.isVisible()).toBe(true);
      await expect.poll(() => price.innerText()).toContain('1.50 per use');
      const text = await price.innerText();
      expect(text).toContain('12.00 per hour');
      expect(text).toContain('at least 15 minutes is charged');
      expect(text).toContain('Your package Makers monthly takes 20 % off.');
      expect(text).toContain('Your credits pay first: 10.00 left.');
      // Before the button: read before switching on.
      const order = await p.evaluate(() => {
        const section = document.querySelector('section[aria-label="Price"]');
        const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Switch on');
        return section && button
          ? section.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING
          : 0;
      });
      expect(order).toBeTruthy();
      mkdirSync(shots, { recursive: true });
      await p.screenshot({ path: join(shots, 'machine-prices.png'), fullPage: true });
    });

    it('says a machine without prices is free to use, and names no discount', async () => {
      const p = page as Page;
      await p.goto(`${started.web}/r/${ids.drill}?c=${codes.drill}`);
      const price = p.getByRole('region', { name: 'Price' });
      await expect.poll(() => price.isVisible()).toBe(true);
      const text = await price.innerText();
      expect(text).toContain('Free to use.');
      expect(text).not.toContain('off.');
      expect(text).not.toContain('credits');
    });
  },
);
