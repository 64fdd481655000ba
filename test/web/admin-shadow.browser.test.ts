import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { describe } from 'vitest';
import {
  type ConsoleHub,
  consoleTestHooks,
  openConsole,
  setSpaceTimeZone,
  startConsoleHub,
} from '../support/admin-console.js';
import { browserTestsEnabled, saveScreenshot } from '../support/browser.js';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { hubCli, runProcess } from '../support/processes.js';

/**
 * Shadow mode as a space meets it: `makerspace-hub shadow` (the real command, with the hub's
 * environment, while the hub runs) against another hub process standing in for the server the
 * space moves from, then the report in the console.
 */
describe.runIf(browserTestsEnabled())(
  'shadow mode: the command and the console page (real processes)',
  () => {
    let started: ConsoleHub;
    let theirs: HubProcess;
    let browser: Browser;
    let admin: { context: BrowserContext; page: Page };

    /** The same space, resources and members on both, in the same order (the same ids). */
    async function seed(hub: HubProcess, space: number) {
      await setSpaceTimeZone(hub, space, 'Europe/Vienna');
      const made = async (path: string, body: unknown) => {
        const res = await hub.api('POST', path, body);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as number;
      };
      return {
        door: await made('/resources', { space, name: 'Front door', controlType: 'door' }),
        laser: await made('/resources', { space, name: 'Laser cutter', controlType: 'machine' }),
        ada: await made('/members', {
          firstName: 'Ada',
          lastName: 'Lovelace',
          emailAddress: 'ada@shadow-web.example',
        }),
        ben: await made('/members', {
          firstName: 'Ben',
          lastName: 'Franklin',
          emailAddress: 'ben@shadow-web.example',
        }),
      };
    }

    beforeAll(async () => {
      started = await startConsoleHub('shadow-oak-lathe-2291');
      theirs = await startHubProcess();
      const ids = await seed(started.hub, started.owner.space);
      const theirSpace = (await theirs.api('GET', '/user/me')).body.space;
      expect(await seed(theirs, theirSpace)).toEqual(ids);
      // Ours: Ada holds a package; open Mon-Fri 09:00-18:00.
      const pkg = (await started.hub.api('POST', '/packages', { name: 'Full' })).body.id;
      await started.hub.api('POST', `/packages/${pkg}/permissions`, { type: 'everything' });
      await started.hub.api('POST', `/members/${ids.ada}/packages`, { package: pkg, fromDate: '2026-01-01' });
      await started.hub.api(
        'PUT',
        `/spaces/${started.owner.space}/opening-hours`,
        [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '09:00', untilTime: '18:00' })),
      );
      // Theirs: what their server logged (Vienna is UTC+1 in March).
      const log = (resource: number, member: number, type: string, createdAt: string, reason?: string) =>
        theirs.api('POST', '/resource-logs', {
          resource,
          member,
          type,
          createdAt,
          ...(type === 'allowed' ? { stoppedAt: createdAt, stopType: 'normal' } : { reason }),
        });
      await log(ids.door, ids.ada, 'allowed', '2026-03-23T09:00:00.000Z'); // Mon 10:00: ours too
      await log(ids.laser, ids.ada, 'allowed', '2026-03-23T12:00:00.000Z'); // Mon 13:00: ours too
      await log(ids.door, ids.ada, 'allowed', '2026-03-28T10:00:00.000Z'); // Sat 11:00: ours closed
      await log(ids.laser, ids.ben, 'allowed', '2026-03-24T09:00:00.000Z'); // ours: no package
      ({ browser, admin } = await openConsole(started, '/admin/shadow', 5_000));
    }, 120_000);

    consoleTestHooks('admin-shadow', () => ({ browser, pages: admin?.page }));

    it('the command compares, keeps its place, and the console shows agreement and disagreements', async () => {
      const env = {
        HUB_DATA_DIR: started.hub.dataDir,
        LOG_LEVEL: 'silent',
        HUB_SHADOW_TOKEN: theirs.token,
      };
      const url = theirs.base.replace(/\/api\/v1$/, '');
      const first = await runProcess([hubCli, 'shadow', '--url', url, '--since', '2026-03-01'], env);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('compared 4 new decisions: 2 agree, 2 disagree');
      expect(first.stdout).toContain(
        'Ada Lovelace at Front door: theirs allowed, ours denied (openingHours: The space is closed now)',
      );
      const again = await runProcess([hubCli, 'shadow', '--url', url], env);
      expect(again.stdout).toContain('compared 0 new decisions');
      const refused = await runProcess([hubCli, 'shadow', '--url', url, '--every', '0'], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--every must be 1 to 1440 minutes');

      const { page } = admin;
      await page.reload();
      const resources = page.getByRole('table', { name: 'Agreement per resource' });
      await expect.poll(() => resources.getByRole('row').count()).toBe(3);
      expect(await resources.getByRole('row', { name: /Front door/ }).textContent()).toContain('1 (50.0%)');
      const disagreements = page.getByRole('table', { name: 'Disagreements' });
      const ben = disagreements.getByRole('row', { name: /Ben Franklin/ });
      expect(await ben.textContent()).toContain('allowed');
      expect(await ben.textContent()).toContain(
        'denied (noPackage): None of your packages allows this resource',
      );
      await saveScreenshot(page, 'admin-shadow');
    });
  },
);
