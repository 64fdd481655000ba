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
    let theirLog: (r: number, m: number, type: string, at: string, reason?: string) => Promise<unknown>;
    let doors: { door: number; ada: number };

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
      // Their webhooks may deliver over plain HTTP to our hub on 127.0.0.1.
      theirs = await startHubProcess({ env: { HUB_WEBHOOK_ALLOW_INSECURE: '1' } });
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
      theirLog = log;
      doors = ids;
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

    it('the admin makes a receiver URL, their webhook posts to it, and new decisions show without the command', {
      timeout: 90_000,
    }, async () => {
      const { page } = admin;
      const url = theirs.base.replace(/\/api\/v1$/, '');
      await page.getByLabel('Their server’s address').fill(url);
      await page.getByRole('button', { name: 'Make receiver URL' }).click();
      const shown = page.getByLabel(/Receiver URL for/);
      const receiverUrl = await shown.inputValue();
      expect(receiverUrl).toMatch(new RegExp(`^${started.web}/api/v1/shadow/webhook/\\d+/[\\w-]{40,}$`));
      const hook = await theirs.api('POST', '/webhooks', { url: receiverUrl, categories: ['resourceLog'] });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      // Sunday 29 March, 12:00 in Vienna: they let Ada in, our space is closed.
      await theirLog(doors.door, doors.ada, 'allowed', '2026-03-29T10:00:00.000Z');
      // Their worker delivers within seconds; on a loaded machine a first attempt may fail and
      // be retried after 5-10 s, so the report is read from the API until it holds the decision
      // (saying what their webhook went through if it never comes), and the page after that.
      const compared = async () => {
        const report = await started.hub.api('GET', '/shadow-report');
        return JSON.stringify(report.body).includes('2026-03-29T10:00:00.000Z');
      };
      await expect
        .poll(compared, { timeout: 45_000 })
        .toBe(true)
        .catch(async (error) => {
          const theirHook = await theirs.api('GET', `/webhooks/${hook.body.id}`);
          throw new Error(`not compared; their webhook: ${JSON.stringify(theirHook.body)}`, { cause: error });
        });
      await page.reload();
      const disagreements = page.getByRole('table', { name: 'Disagreements' });
      await expect.poll(() => disagreements.getByRole('row', { name: /29 Mar 2026/ }).count()).toBe(1);
      const receivers = page.getByRole('table', { name: 'Webhook receivers' });
      expect(
        await receivers.getByRole('row', { name: new RegExp(url.replace(/[.:/]/g, '\\$&')) }).textContent(),
      ).not.toContain('none yet');
      // The URL is shown once: after a reload the page lists the receiver without it.
      expect(await page.getByLabel(/Receiver URL for/).count()).toBe(0);
      await saveScreenshot(page, 'admin-shadow-webhook');
    });
  },
);
