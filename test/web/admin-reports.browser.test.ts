import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  consoleTestHooks,
  openConsole,
  setSpaceTimeZone,
  startConsoleHub,
} from '../support/admin-console.js';
import { browserTestsEnabled, phone, saveScreenshot, signInWithPassword } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';

/**
 * The day `n` days before today in the space's zone (Vienna), as the console counts its ranges;
 * the logs sit at 09:00 UTC, the same day in Vienna, and before now whatever the hour.
 */
const viennaDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Vienna' });
const daysAgo = (n: number) => viennaDate.format(new Date(Date.now() - n * 86_400_000));

/** The figures table of a report section, as rows of cell texts (the header row left out). */
async function tableRows(page: Page, name: string): Promise<string[][]> {
  const rows = page.getByRole('table', { name, exact: true }).getByRole('row');
  const out: string[][] = [];
  for (let i = 1; i < (await rows.count()); i++)
    out.push(await rows.nth(i).getByRole('cell').allTextContents());
  return out;
}

describe.runIf(browserTestsEnabled())('admin reports in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let page: Page;
  let email = '';
  const password = 'ledger-walnut-4417';

  beforeAll(async () => {
    const started = await startConsoleHub(password);
    ({ hub, web } = started);
    const me = started.owner;
    email = me.emailAddress;
    await setSpaceTimeZone(hub, me.space, 'Europe/Vienna');
    const post = async (path: string, body: unknown) => {
      const res = await hub.api('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as number;
    };
    const laser = await post('/resources', { space: me.space, name: 'Laser', controlType: 'machine' });
    const door = await post('/resources', { space: me.space, name: 'Door', controlType: 'door' });
    const ada = await post('/members', { firstName: 'Ada', lastName: 'Lovelace' });
    const basic = await post('/packages', { name: 'Basic' });
    const adaBasic = await post(`/members/${ada}/packages`, { package: basic, fromDate: daysAgo(10) });
    // The laser: 1.5 h three days ago, 0.75 h yesterday; two refusals at the door two days ago.
    const log = (resource: number, day: string, from: string, until: string | null, extra = {}) =>
      post('/resource-logs', {
        resource,
        member: ada,
        createdAt: `${day}T${from}:00.000Z`,
        ...(until ? { stoppedAt: `${day}T${until}:00.000Z`, stopType: 'normal' } : {}),
        ...extra,
      });
    const first = await log(laser, daysAgo(3), '09:00', '10:30');
    await log(laser, daysAgo(1), '09:00', '09:45');
    await log(door, daysAgo(2), '09:00', null, { type: 'denied', reason: 'noPackage' });
    await log(door, daysAgo(2), '09:05', null, { type: 'denied', reason: 'noPackage' });
    const charge = (dateTime: string, price: string, extra: object) =>
      post('/charges', { member: ada, dateTime, price, description: `Charge ${price}`, ...extra });
    await charge(`${daysAgo(3)}T10:30:00.000Z`, '12.50', { resourceLog: first });
    await charge(`${daysAgo(10)}T09:00:00.000Z`, '20.00', { memberPackage: adaBasic });
    const opened = await openConsole(started, '/admin/reports');
    browser = opened.browser;
    page = opened.admin.page;
  }, 120_000);

  consoleTestHooks('admin-reports', () => ({ browser, pages: page }));

  it('draws each report as a chart with its figures as text, for the last 30 days by default', async () => {
    await expect.poll(() => page.getByRole('heading', { name: 'Reports', level: 1 }).isVisible()).toBe(true);
    await expect.poll(() => page.getByLabel('From', { exact: true }).inputValue()).toBe(daysAgo(29));
    expect(await page.getByLabel('Until', { exact: true }).inputValue()).toBe(daysAgo(0));
    for (const name of ['Use per resource', 'Refusals by reason', 'Members', 'Revenue']) {
      const section = page.getByRole('region', { name });
      // uPlot draws on canvas, in its own chunk, once the figures are here.
      await expect.poll(() => section.locator('canvas').count(), { message: name }).toBeGreaterThan(0);
      expect(await section.getByRole('img').getAttribute('aria-label')).toContain(
        'the figures are in the tables',
      );
    }
    await expect
      .poll(() => tableRows(page, 'Use per resource: totals'))
      .toEqual([
        ['Door', '0', '0 h'],
        ['Laser', '2', '2.25 h'],
        ['All resources', '2', '2.25 h'],
      ]);
    expect(await tableRows(page, 'Refusals by reason: totals')).toEqual([
      ['No package allows it', '2'],
      ['All reasons', '2'],
    ]);
    expect(await tableRows(page, 'Members: totals')).toEqual([
      ['Active (held a package)', '1'],
      ['New (first package started)', '1'],
      ['Ended (last package ended)', '0'],
    ]);
    expect(await tableRows(page, 'Revenue: totals')).toEqual([
      ['Package Basic', '20.00'],
      ['Laser', '12.50'],
      ['All charges', '32.50'],
    ]);
    await saveScreenshot(page, 'admin-reports');
  });

  it('a new range and interval recount every report; the CSV holds the rows of the range', async () => {
    await page.getByLabel('From', { exact: true }).fill(daysAgo(2));
    await expect
      .poll(() => tableRows(page, 'Use per resource: totals'))
      .toEqual([
        ['Door', '0', '0 h'],
        ['Laser', '1', '0.75 h'],
        ['All resources', '1', '0.75 h'],
      ]);
    expect(await tableRows(page, 'Revenue: totals')).toEqual([['All charges', '0.00']]);
    await expect.poll(() => page.getByText('No charges in this range.').isVisible()).toBe(true);

    await page.getByLabel('Per', { exact: true }).selectOption('month');
    const usage = page.getByRole('region', { name: 'Use per resource' });
    await usage.getByText('Figures per month').click();
    const months = await tableRows(page, 'Use per resource per month');
    expect(months.length).toBeGreaterThanOrEqual(1);
    expect(months.length).toBeLessThanOrEqual(2); // the range crosses a month's end or not

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      usage.getByRole('button', { name: 'Download use per resource as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`usage-${daysAgo(2)}_${daysAgo(0)}.csv`);
    const lines = readFileSync((await download.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(lines[0]).toBe('from,until,resource,resourceName,sessions,hours');
    const rows = lines.slice(1).map((l) => l.split(','));
    // Two resources per month of the range; the laser's one session and 0.75 h, the door's none.
    expect(rows).toHaveLength(2 * months.length);
    expect(rows[0][0]).toBe(daysAgo(2));
    const total = (name: string, column: number) =>
      rows.filter((r) => r[3] === name).reduce((a, r) => a + Number(r[column]), 0);
    expect([total('Laser', 4), total('Laser', 5), total('Door', 4)]).toEqual([1, 0.75, 0]);

    // A range that ends before it starts is named in words and asks the hub nothing.
    await page.getByLabel('Until', { exact: true }).fill(daysAgo(3));
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('Until: must not lie before From.');
    expect(await page.getByText(`${daysAgo(2)} to ${daysAgo(0)}, per month`).isVisible()).toBe(true);
    await page.getByLabel('Until', { exact: true }).fill(daysAgo(0));
    await expect.poll(() => alert.count()).toBe(0);
  });

  it('fits a 360 px wide screen', async () => {
    const mobile = await phone(browser);
    await signInWithPassword(mobile.page, web, email, password, '/admin/reports');
    await expect
      .poll(() => mobile.page.getByRole('region', { name: 'Revenue' }).locator('canvas').count())
      .toBeGreaterThan(0);
    expect(await mobile.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // The figures of every day, opened, stack their rows too.
    const usage = mobile.page.getByRole('region', { name: 'Use per resource' });
    await usage.getByText('Figures per day').click();
    await expect
      .poll(() => tableRows(mobile.page, 'Use per resource per day').then((r) => r.length))
      .toBe(30);
    expect(await mobile.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await mobile.context.close();
  });
});
