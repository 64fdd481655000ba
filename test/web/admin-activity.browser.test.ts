import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  consoleTestHooks,
  fitsPhone,
  openConsole,
  parseCsv,
  setSpaceTimeZone,
  startConsoleHub,
} from '../support/admin-console.js';
import { browserTestsEnabled, phone, saveScreenshot, signInWithPassword } from '../support/browser.js';
import { type HubProcess, startAgentProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';

describe.runIf(browserTestsEnabled())('resource settings, resource logs and activity in Chromium', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let owner: { id: number; emailAddress: string; space: number };
  let admin: { context: BrowserContext; page: Page };
  let member: { context: BrowserContext; page: Page };
  const password = 'copper-heron-2290';
  const adaPassword = 'maple-sprocket-7731';
  const ids = { laser: 0, door: 0, ada: 0, bo: 0, course: 0, evening: 0 };

  beforeAll(async () => {
    const started = await startConsoleHub(password);
    ({ hub, web, owner } = started);
    // Vienna: the page's times (and the filter's) are the space's, an hour ahead of UTC in March.
    await setSpaceTimeZone(hub, owner.space, 'Europe/Vienna');

    const post = async (path: string, body: object) => {
      const res = await hub.api('POST', path, body);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(201);
      return res.body;
    };
    ids.laser = (await post('/resources', { space: owner.space, name: 'Laser', controlType: 'machine' })).id;
    ids.door = (await post('/resources', { space: owner.space, name: 'Front door', controlType: 'door' })).id;
    await hub.api('PUT', `/resources/${ids.laser}/bridge`, {});
    const apiKey = (await hub.api('GET', `/resources/${ids.laser}/bridge/api-key`)).body.apiKey;
    await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: ids.laser,
      apiKey,
      controlType: 'machine',
    });
    await eventually(
      async () => (await hub.api('GET', `/resources/${ids.laser}/bridge`)).body.offline === false,
      10_000,
      'laser bridge online',
    );
    ids.course = (await post('/training-courses', { title: 'Laser safety' })).id;
    await post('/training-courses', { title: 'Wood shop basics' });
    const pkg = (await post('/packages', { name: 'Full membership' })).id;
    await post(`/packages/${pkg}/permissions`, { type: 'everything' });
    ids.ada = (
      await post('/members', { firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'ada@activity.example' })
    ).id;
    ids.bo = (
      await post('/members', { firstName: 'Bo', lastName: 'Plain', emailAddress: 'bo@activity.example' })
    ).id;
    await post(`/members/${ids.ada}/packages`, { package: pkg });
    await post(`/members/${ids.ada}/trainings`, { trainingCourse: ids.course });
    const key = await post('/api-keys', { member: ids.ada });
    const adaToken = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: adaPassword }, adaToken)).status).toBe(204);

    // Besides the laser agent's start (a reboot log): 30 short uses on 1 March, then the evening of 10 March (Vienna time in comments).
    for (let i = 0; i < 30; i++) {
      const at = new Date(Date.UTC(2026, 2, 1, 8, i * 2));
      await post('/resource-logs', {
        resource: ids.laser,
        member: ids.ada,
        createdAt: at.toISOString(),
        stoppedAt: new Date(at.getTime() + 60_000).toISOString(),
      });
    }
    // The day before (not last night).
    await post('/resource-logs', {
      resource: ids.laser,
      member: ids.bo,
      createdAt: '2026-03-09T10:00:00.000Z',
      stoppedAt: '2026-03-09T10:30:00.000Z',
    });
    // 19:30 to 22:45 on the laser.
    ids.evening = (
      await post('/resource-logs', {
        resource: ids.laser,
        member: ids.ada,
        createdAt: '2026-03-10T18:30:00.000Z',
        stoppedAt: '2026-03-10T21:45:00.000Z',
      })
    ).id;
    // 20:00 the front door, 21:00 Bo refused at the laser.
    await post('/resource-logs', {
      resource: ids.door,
      member: ids.bo,
      createdAt: '2026-03-10T19:00:00.000Z',
      stoppedAt: '2026-03-10T19:00:00.000Z',
    });
    await post('/resource-logs', {
      resource: ids.laser,
      member: ids.bo,
      type: 'denied',
      reason: 'noPermission',
      createdAt: '2026-03-10T20:00:00.000Z',
    });

    ({ browser, admin } = await openConsole(started, '/admin', 10_000));
    member = await phone(browser);
    member.page.setDefaultTimeout(10_000);
    await signInWithPassword(member.page, web, 'ada@activity.example', adaPassword, '/');
  }, 120_000);

  consoleTestHooks('admin-activity', () => ({
    browser,
    pages: { admin: admin?.page, member: member?.page },
  }));

  it('the dashboard feed opens with the events from before the page was opened', async () => {
    const { page } = admin;
    const feed = page.getByRole('list', { name: 'Activity feed' });
    await expect.poll(() => feed.getByRole('listitem').count()).toBe(35);
    // Newest first: Bo refused at the laser, then the door, then Ada's evening.
    const lines = await feed.getByRole('listitem').allTextContents();
    expect(lines[0]).toContain('Laser');
    expect(lines[0]).toContain('Denied: training missing, Bo Plain');
    expect(lines[1]).toContain('Front door');
    expect(lines[2]).toContain('Allowed: Ada Lovelace');
    expect(lines.some((l) => l.includes('Nothing yet'))).toBe(false);
  }, 60_000);

  it('edits prices, training, maximum session, offline use and booking rules; locks with a reason', async () => {
    const { page } = admin;
    await page.getByRole('link', { name: 'Resources', exact: true }).click();
    await page.getByRole('button', { name: 'Laser', exact: true }).click();
    const edit = page.getByRole('form', { name: 'Edit Laser' });
    await edit.getByLabel('Price per use').fill('1.50');
    await edit.getByLabel('Price per time', { exact: true }).fill('12');
    await edit.getByLabel(/^Time unit/).selectOption({ label: 'per hour' });
    await edit.getByLabel('Price per booking').fill('5');
    await edit.getByLabel('Booking unit').selectOption({ label: 'per 30 minutes' });
    await edit.getByLabel('Maximum session (minutes; empty: no limit)').fill('90');
    await edit.getByLabel(/^Offline use/).fill('15');
    await edit.getByLabel('Can be booked').check();
    await edit.getByLabel('Requires a training').check();
    const courses = edit.getByRole('list', { name: 'Training courses that unlock Laser' });
    // Required but no course unlocks it yet: the form says what that means.
    await expect.poll(() => edit.getByText('No course unlocks Laser yet').count()).toBe(1);
    await courses.getByLabel('Laser safety').check();
    await edit.getByLabel('State').selectOption('locked');
    await edit.getByLabel(/^Why it is locked/).fill('Mirror being cleaned until 18:00');
    await edit.getByLabel(/^Safety message/).fill('Wear the orange glasses and switch the ventilation on.');
    await edit.getByRole('button', { name: 'Save Laser' }).click();
    await expect.poll(() => edit.getByText('Saved Laser.').count()).toBe(1);
    await saveScreenshot(page, 'admin-resources');

    const laser = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    expect(laser).toMatchObject({
      pricePerTimeBusySeconds: 3600,
      pricePerBookingSeconds: 1800,
      maxDuration: 5400,
      maxOfflineUsage: 900,
      canBeBooked: true,
      requiresTraining: true,
      state: 'locked',
      lockReason: 'Mirror being cleaned until 18:00',
      safetyMessage: 'Wear the orange glasses and switch the ventilation on.',
    });
    expect(Number(laser.pricePerUsage)).toBe(1.5);
    expect(Number(laser.pricePerTimeBusy)).toBe(12);
    expect(Number(laser.pricePerBooking)).toBe(5);
    const course = (await hub.api('GET', `/training-courses/${ids.course}`)).body;
    expect(course.resources).toEqual([ids.laser]);

    // A price that is not a number is refused by name, and nothing changes.
    await edit.getByLabel('Price per use').fill('cheap');
    await edit.getByRole('button', { name: 'Save Laser' }).click();
    await expect
      .poll(() => edit.getByRole('alert').textContent())
      .toBe('Price per usage: expected a decimal such as "12.34".');
    expect((await hub.api('GET', `/resources/${ids.laser}`)).body.lockVersion).toBe(laser.lockVersion);
    await edit.getByLabel('Price per use').fill('1.50');
    await fitsPhone(page);

    // The member at the laser reads why it is locked.
    const phonePage = member.page;
    await phonePage.goto(`${web}/r/${ids.laser}`);
    const verdict = phonePage.getByRole('region', { name: 'Verdict' });
    await expect.poll(() => verdict.textContent()).toContain('This machine is locked.');
    expect(await verdict.textContent()).toContain('Mirror being cleaned until 18:00');

    // Unlocked, the verdict is green and the safety message is its own notice, outside it.
    await edit.getByLabel('State').selectOption('active');
    await edit.getByRole('button', { name: 'Save Laser' }).click();
    await expect.poll(() => edit.getByText('Saved Laser.').count()).toBe(1);
    expect((await hub.api('GET', `/resources/${ids.laser}`)).body).toMatchObject({
      state: 'active',
      lockReason: null,
    });
    await phonePage.reload();
    await expect.poll(() => verdict.textContent()).toBe('You may use it now, for up to 1 h 30 min.');
    const safety = phonePage.getByRole('region', { name: 'Safety' });
    expect(await safety.textContent()).toContain('Wear the orange glasses and switch the ventilation on.');
    expect(await verdict.textContent()).not.toContain('orange glasses');
    // Read before the button: the notice comes first on the page.
    const [safetyTop, buttonTop] = await Promise.all([
      safety.boundingBox(),
      phonePage.getByRole('button', { name: 'Switch on' }).boundingBox(),
    ]);
    expect(safetyTop!.y).toBeLessThan(buttonTop!.y);
    await saveScreenshot(phonePage, 'member-safety-notice');
  }, 90_000);

  it("a resource's log page: newest first, a page at a time", async () => {
    const { page } = admin;
    await page.getByRole('link', { name: 'Log of Laser' }).click();
    await page.waitForURL(`${web}/admin/resources/${ids.laser}/log`);
    await expect.poll(() => page.getByRole('heading', { name: 'Log of Laser', level: 1 }).count()).toBe(1);
    const table = page.getByRole('table', { name: 'Log of Laser' });
    await expect.poll(() => table.getByRole('row').count()).toBe(26);
    const rows = await table.getByRole('row').allTextContents();
    // Newest first: the unlocking and locking of the last test, then 21:00 Vienna: Bo refused,
    // then Ada's evening 19:30 to 22:45.
    expect(rows[1]).toContain('Unlocked by');
    expect(rows[2]).toContain('Locked by');
    expect(rows[3]).toContain('2026-03-10 21:00');
    expect(rows[3]).toContain('Denied: training missing, Bo Plain');
    expect(rows[4]).toContain('2026-03-10 19:30');
    expect(rows[4]).toContain('2026-03-10 22:45');
    expect(rows[4]).toContain('3 h 15 min');
    expect(rows[4]).toContain('Ada Lovelace');
    expect(await page.getByText('36 entries, newest first').count()).toBe(1);
    await saveScreenshot(page, 'admin-resource-log');
    await fitsPhone(page);

    const pages = page.getByRole('navigation', { name: 'Pages of the log of Laser' });
    await pages.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(12);
    // The oldest entries last: the first use on 1 March, 09:00 Vienna, then the agent's first start.
    const last = await table.getByRole('row').allTextContents();
    expect(last.at(-2)).toContain('2026-03-01 09:00');
    expect(last.at(-1)).toContain('Bridge restarted');
  }, 60_000);

  it('activity: who used the laser last night, filtered to the laser and the night, and its CSV', async () => {
    const { page } = admin;
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Activity', level: 1 }).count()).toBe(1);
    const table = page.getByRole('table', { name: 'Activity' });
    await expect
      .poll(() => page.getByTestId('activity-count').textContent())
      .toBe('37 entries, newest first.');

    const filters = page.getByRole('form', { name: 'Filter the activity' });
    await filters.getByLabel('Resource').selectOption({ label: 'Laser' });
    await filters.getByLabel('From').fill('2026-03-10T18:00');
    await filters.getByLabel('Until').fill('2026-03-11T08:00');
    await expect
      .poll(() => page.getByTestId('activity-count').textContent())
      .toBe('2 entries, newest first.');
    const rows = await table.getByRole('row').allTextContents();
    expect(rows[1]).toContain('Bo Plain');
    expect(rows[1]).toContain('Denied: training missing');
    expect(rows[2]).toContain('Ada Lovelace');
    expect(rows[2]).toContain('2026-03-10 19:30');
    expect(rows[2]).toContain('2026-03-10 22:45');
    expect(rows[2]).toContain('3 h 15 min');
    expect(rows.join()).not.toContain('Front door');

    // The outcome: only the uses.
    await filters.getByLabel('Outcome').selectOption({ label: 'Allowed' });
    await expect.poll(() => page.getByTestId('activity-count').textContent()).toBe('1 entry, newest first.');
    await filters.getByLabel('Outcome').selectOption({ label: 'Any outcome' });
    await expect
      .poll(() => page.getByTestId('activity-count').textContent())
      .toBe('2 entries, newest first.');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      filters.getByRole('button', { name: 'Export activity as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('activity-2026-03-10T1800_2026-03-11T0800.csv');
    const csv = parseCsv(readFileSync((await download.path())!, 'utf8'));
    expect(csv[0]).toEqual([
      'id',
      'start',
      'end',
      'startLocal',
      'endLocal',
      'durationSeconds',
      'resource',
      'resourceName',
      'member',
      'memberName',
      'type',
      'reason',
      'offline',
    ]);
    expect(csv).toHaveLength(3);
    expect(csv[2]).toEqual([
      String(ids.evening),
      '2026-03-10T18:30:00.000Z',
      '2026-03-10T21:45:00.000Z',
      '2026-03-10 19:30',
      '2026-03-10 22:45',
      '11700',
      String(ids.laser),
      'Laser',
      String(ids.ada),
      'Ada Lovelace',
      'allowed',
      '',
      '',
    ]);
    expect(csv[1].slice(9, 12)).toEqual(['Bo Plain', 'denied', 'noPermission']);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Exported 2 entries.');

    // A period that ends before it starts is refused on the page, before any call.
    await filters.getByLabel('Until').fill('2026-03-09T08:00');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Until: must be later than From.');
    await filters.getByLabel('Until').fill('2026-03-11T08:00');
    await expect
      .poll(() => page.getByTestId('activity-count').textContent())
      .toBe('2 entries, newest first.');
    await filters.getByLabel('Until').blur();
    await saveScreenshot(page, 'admin-activity');
    await fitsPhone(page);
  }, 60_000);
});
