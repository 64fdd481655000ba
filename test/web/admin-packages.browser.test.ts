import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, openConsole, fitsPhone, startConsoleHub } from '../support/admin-console.js';
import {
  browserTestsEnabled,
  phone,
  saveScreenshot,
  saveThroughAccessPreview,
  signInWithPassword,
} from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';

/** A date `days` from today (the hub's space keeps UTC, as a fresh hub does). */
const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
/** "Fri 16 Apr 2027", as the console writes dates. */
const label = (date: string) =>
  `${new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  })} ${date.slice(0, 4)}`;

describe.runIf(browserTestsEnabled())('admin packages and trainings in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  const ids = { ada: 0, bo: 0, laser: 0, door: 0 };
  const password = 'parcel-lathe-4417';
  const adaPassword = 'ada-trains-lasers-8812';

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name, exact: true }).click();
  async function openMember(page: Page, name: string) {
    await nav(page, 'Members');
    await page.getByRole('button', { name, exact: true }).click();
  }

  beforeAll(async () => {
    const started = await startConsoleHub(password);
    ({ hub, web } = started);
    const me = started.owner;
    const member = async (firstName: string, lastName: string) =>
      (
        await hub.api('POST', '/members', {
          firstName,
          lastName,
          emailAddress: `${firstName.toLowerCase()}@packages-test.example`,
        })
      ).body.id as number;
    ids.ada = await member('Ada', 'Lovelace');
    ids.bo = await member('Bo', 'Plain');
    const resource = async (name: string, values: object) =>
      (await hub.api('POST', '/resources', { space: me.space, name, ...values })).body.id as number;
    ids.laser = await resource('Laser', { controlType: 'machine', requiresTraining: true });
    ids.door = await resource('Front door', { controlType: 'door' });
    const adaKey = (await hub.api('POST', '/api-keys', { member: ids.ada })).body;
    const adaToken = (await hub.api('GET', `/api-keys/${adaKey.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: adaPassword }, adaToken)).status).toBe(204);
    ({ browser, admin } = await openConsole(started, '/admin/packages', 15_000));
  }, 120_000);

  consoleTestHooks('admin-packages', () => ({ browser, pages: admin?.page }));

  it('creates a package with a time-limited permission and a credit, then archives another', async () => {
    const { page } = admin;
    await expect.poll(() => page.getByRole('heading', { name: 'Packages', level: 1 }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('No packages yet.').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'New package' }).click();
    const form = page.getByRole('form', { name: 'New package' });
    await form.getByLabel('Name').fill('Monthly');
    await form.getByLabel('Recurring fee').fill('30.00');
    await form.getByLabel('Setup fee').fill('10.00');
    await form.getByLabel('Prorate').check();
    await form.getByRole('button', { name: 'Create package' }).click();
    const list = page.getByRole('table', { name: 'Packages' });
    await expect
      .poll(() => list.getByRole('row', { name: 'Monthly' }).textContent())
      .toContain('30.00 a month, setup 10.00');

    // A permission for the laser on Mondays and Tuesdays, 09:00 to 18:00.
    const edit = page.getByRole('region', { name: 'Package details' });
    await edit.getByRole('button', { name: 'Add permission' }).click();
    const perm = edit.getByRole('form', { name: 'New permission' });
    await perm.getByLabel('Allows').selectOption({ label: 'A resource' });
    await perm.getByRole('combobox', { name: 'Resource', exact: true }).selectOption({ label: 'Laser' });
    await perm.getByLabel('When').selectOption({ label: 'At these times' });
    await perm.getByLabel('From').fill('09:00');
    await perm.getByLabel('Until').fill('18:00');
    await perm.getByRole('button', { name: 'Add time' }).click();
    const second = perm.getByRole('group', { name: 'Time 2' });
    expect(await second.getByLabel('Day').inputValue()).toBe('2');
    await perm.getByRole('button', { name: 'Save permission' }).click();
    await expect
      .poll(() => edit.getByRole('region', { name: 'Permissions' }).textContent())
      .toContain('Laser, Mon 09:00–18:00, Tue 09:00–18:00');

    // A credit of 5.00 a month.
    await edit.getByRole('button', { name: 'Add credit' }).click();
    const credit = edit.getByRole('form', { name: 'New credit' });
    await credit.getByLabel('Amount').fill('5.00');
    await credit.getByRole('button', { name: 'Save credit' }).click();
    await expect
      .poll(() => edit.getByRole('button', { name: 'Edit credit 5.00 a month for anything' }).isVisible())
      .toBe(true);

    // What the hub stored.
    const pkg = (await hub.api('GET', '/packages')).body.find((p: any) => p.name === 'Monthly');
    expect(pkg).toMatchObject({ recurringFee: '30.00', setupFee: '10.00', prorate: true, state: 'active' });
    expect((await hub.api('GET', `/packages/${pkg.id}/permissions`)).body).toEqual([
      expect.objectContaining({
        type: 'resource',
        resource: ids.laser,
        timeType: 'custom',
        times: [
          { dayOfWeek: 1, fromTime: '09:00', untilTime: '18:00' },
          { dayOfWeek: 2, fromTime: '09:00', untilTime: '18:00' },
        ],
      }),
    ]);
    expect((await hub.api('GET', `/packages/${pkg.id}/credits`)).body).toEqual([
      expect.objectContaining({ amount: '5.00', period: 'month', scope: 'global' }),
    ]);

    // Bo holds it from today: the list counts him.
    expect((await hub.api('POST', `/members/${ids.bo}/packages`, { package: pkg.id })).status).toBe(201);
    const old = (await hub.api('POST', '/packages', { name: 'Old plan' })).body;
    await page.reload();
    const members = list.getByRole('row', { name: 'Monthly' }).getByRole('cell').nth(2);
    await expect.poll(() => members.textContent()).toBe('1');
    await list.getByRole('button', { name: 'Edit Old plan' }).click();
    await page.getByRole('button', { name: 'Archive Old plan' }).click();
    await expect.poll(() => list.getByRole('row', { name: 'Old plan' }).count()).toBe(0);
    expect((await hub.api('GET', `/packages/${old.id}`)).body.state).toBe('archived');
    await page.getByLabel('Show').selectOption({ label: 'Archived packages' });
    await expect.poll(() => list.getByRole('row', { name: 'Old plan' }).textContent()).toContain('archived');
    await page.getByLabel('Show').selectOption({ label: 'Active packages' });

    await list.getByRole('button', { name: 'Edit Monthly' }).click();
    await expect.poll(() => edit.getByText('Mon 09:00–18:00').isVisible()).toBe(true);
    // The permission's time table, as it is edited.
    await edit.getByRole('button', { name: 'Edit permission for Laser' }).click();
    const table = edit.getByRole('form', { name: 'Edit permission' });
    expect(await table.getByRole('group', { name: 'Time 2' }).getByLabel('Until').inputValue()).toBe('18:00');
    await saveScreenshot(page, 'admin-packages');
    await fitsPhone(page);
    await table.getByRole('button', { name: 'Cancel' }).click();
  });

  it('gives a member a package from the member page, showing the pro rata first charge before saving, then ends it', async () => {
    const { page } = admin;
    await openMember(page, 'Ada Lovelace');
    const section = page.getByRole('region', { name: 'Packages', exact: true });
    await expect
      .poll(() => section.getByText('may use nothing until given a package').isVisible())
      .toBe(true);
    await section.getByRole('button', { name: 'Give Ada Lovelace a package' }).click();
    const form = section.getByRole('form', { name: 'Give Ada Lovelace a package' });
    await form.getByLabel('Package').selectOption({ label: 'Monthly' });
    // From 16 April 2027: 15 of April's 30 days, 30.00 * 15/30 = 15.00, and the setup fee.
    await form.getByLabel('From').fill('2027-04-16');
    const charges = form.getByRole('region', { name: 'Charges' });
    await expect
      .poll(() => charges.textContent())
      .toContain('Monthly: 2027-04-16 to 2027-04-30 (pro rata): 15.00');
    const shown = await charges.textContent();
    expect(shown).toContain('Monthly: setup fee: 10.00');
    expect(shown).toContain('Total 25.00');
    expect(shown).toContain('Charged on Fri 16 Apr 2027');
    // Nothing is given before saving.
    expect((await hub.api('GET', `/members/${ids.ada}/packages`)).body).toEqual([]);
    await saveScreenshot(page, 'admin-member-packages');
    await form.getByRole('button', { name: 'Give Monthly' }).click();

    const table = section.getByRole('table', { name: 'Packages of Ada Lovelace' });
    await expect
      .poll(() => table.getByRole('row', { name: 'Monthly from 2027-04-16' }).textContent())
      .toContain('starts later');
    const given = (await hub.api('GET', `/members/${ids.ada}/packages`)).body;
    expect(given).toEqual([expect.objectContaining({ fromDate: '2027-04-16', untilDate: null })]);

    await table.getByRole('button', { name: 'End Monthly' }).click();
    await table.getByLabel('Last day of Monthly').fill('2027-06-30');
    await table.getByRole('button', { name: 'End Monthly on 2027-06-30' }).click();
    await expect
      .poll(() => table.getByRole('row', { name: 'Monthly from 2027-04-16' }).textContent())
      .toContain('Wed 30 Jun 2027');
    expect((await hub.api('GET', `/members/${ids.ada}/packages`)).body[0].untilDate).toBe('2027-06-30');
    await fitsPhone(page);
  });

  it('creates a course unlocking the laser with a validity, records a training, lists it as expiring and shows it to the member', async () => {
    const { page } = admin;
    await nav(page, 'Trainings');
    await expect.poll(() => page.getByText('No courses yet.').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New course' }).click();
    const form = page.getByRole('form', { name: 'New course' });
    await form.getByLabel('Title').fill('Laser safety');
    await form.getByLabel('Valid for').fill('1');
    await form.getByLabel('Unit').selectOption({ label: 'Years' });
    await form.getByLabel('Laser', { exact: true }).check();
    await form.getByRole('button', { name: 'Create course' }).click();
    const courses = page.getByRole('table', { name: 'Training courses' });
    await expect
      .poll(() => courses.getByRole('row', { name: 'Laser safety' }).textContent())
      .toContain('1 year');
    expect(await courses.getByRole('row', { name: 'Laser safety' }).textContent()).toContain('Laser');
    const course = (await hub.api('GET', '/training-courses')).body[0];
    expect(course).toMatchObject({ resources: [ids.laser], defaultDuration: 1, defaultDurationUnit: 'year' });

    // A training given a year ago less ten days: valid for ten more days.
    await openMember(page, 'Ada Lovelace');
    const section = page.getByRole('region', { name: 'Trainings', exact: true });
    await section.getByRole('button', { name: 'Record a training of Ada Lovelace' }).click();
    const record = section.getByRole('form', { name: 'Record a training of Ada Lovelace' });
    await record.getByLabel('Course').selectOption({ label: 'Laser safety' });
    const date = dayFromToday(-355);
    await record.getByLabel('Date').fill(date);
    await record.getByLabel('Trainer').fill('Grace Hopper');
    await record.getByRole('button', { name: 'Record training' }).click();
    await expect
      .poll(async () => (await hub.api('GET', `/members/${ids.ada}/trainings`)).body.length)
      .toBe(1);
    const until = (await hub.api('GET', `/members/${ids.ada}/trainings`)).body[0].untilDate as string;
    expect(until > dayFromToday(7) && until < dayFromToday(14)).toBe(true);
    const list = section.getByRole('list', { name: 'Trainings of Ada Lovelace' });
    await expect.poll(() => list.textContent()).toContain(`Laser safety on ${label(date)} by Grace Hopper`);
    expect(await list.textContent()).toContain(`valid until ${label(until)}`);

    await nav(page, 'Trainings');
    const expiring = page.getByRole('table', { name: 'Trainings expiring in the next 30 days' });
    await expect.poll(() => expiring.textContent()).toContain('Ada Lovelace');
    const row = await expiring.getByRole('row').nth(1).textContent();
    expect(row).toContain('Laser safety');
    expect(row).toContain(label(until));
    await courses.getByRole('button', { name: 'Edit Laser safety' }).click();
    await saveScreenshot(page, 'admin-trainings');
    await fitsPhone(page);

    // Ada sees it, and when it expires, on her home page.
    const ada = await phone(browser);
    await signInWithPassword(ada.page, web, 'ada@packages-test.example', adaPassword, '/');
    const mine = ada.page.getByRole('region', { name: 'My trainings' });
    await expect.poll(() => mine.textContent()).toContain('Laser safety');
    const day = new Date(`${until}T12:00:00Z`).toLocaleDateString('en-GB', {
      timeZone: 'UTC',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
    });
    expect(await mine.textContent()).toContain(`valid until ${day}`);
    await ada.context.close();

    // Deleting the training: gone from the member page and the hub.
    await openMember(page, 'Ada Lovelace');
    await section.getByRole('button', { name: `Delete training Laser safety of ${date}` }).click();
    await saveThroughAccessPreview(section, 'Delete anyway');
    await expect.poll(() => section.getByText('None.').isVisible()).toBe(true);
    expect((await hub.api('GET', `/members/${ids.ada}/trainings`)).body).toEqual([]);
  });
});
