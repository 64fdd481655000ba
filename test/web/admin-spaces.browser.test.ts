import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, startConsoleHub } from '../support/admin-console.js';
import {
  browserTestsEnabled,
  desktop,
  launchChromium,
  phone,
  saveScreenshot,
  signInWithPassword,
} from '../support/browser.js';
import { type HubProcess, startOnlineDoorAgent } from '../support/e2e.js';

const zone = 'Europe/Vienna';
const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Today's date in the space's zone, as the hub and the pages see it. */
function todayIn(tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());
}
function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
const weekdayIndex = (date: string) => (new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7;
/** The calendar's day label, "Tue 24 Nov". */
const dayLabel = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });

describe.runIf(browserTestsEnabled())('admin spaces and bookings in Chromium (real hub and agent)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let admin: { context: BrowserContext; page: Page };
  let member: { context: BrowserContext; page: Page };
  const ids = { space: 0, door: 0, laser: 0, ada: 0, bo: 0 };
  let doorCode = '';
  let adaToken = '';
  let ownerEmail = '';
  const adminPassword = 'lathe-chuck-birch-4410';
  const adaPassword = 'router-table-ash-8812';
  // Dates in the space's zone (Vienna once the admin sets it).
  let today = '';
  let tomorrow = '';

  const verdict = async () => {
    await member.page.goto(`${web}/r/${ids.door}?c=${doorCode}`);
    return member.page.getByTestId('verdict');
  };
  const reason = async () =>
    (await hub.api('GET', `/resources/${ids.door}/access-check`, undefined, adaToken)).body.reason;
  /**
   * Saves through the preview of who gains and loses access when one shows (a change that
   * alters nobody's access saves without one).
   */
  const passPreview = async (page: Page) => {
    const anyway = page.getByRole('button', { name: 'Save anyway' });
    if (
      await anyway.waitFor({ state: 'visible', timeout: 3000 }).then(
        () => true,
        () => false,
      )
    )
      await anyway.click();
  };
  /** Saves the opening hours, confirming when they close the space at this moment. */
  const saveHours = async (page: Page) => {
    await page.getByRole('button', { name: 'Save opening hours' }).click();
    const confirm = page.getByRole('button', { name: /^Save and close .* now$/ });
    if (await confirm.isVisible()) await confirm.click();
    await passPreview(page);
  };
  const adminNav = (name: string) =>
    admin.page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name }).click();

  beforeAll(async () => {
    const started = await startConsoleHub(adminPassword);
    ({ hub, web } = started);
    const me = started.owner;
    ownerEmail = me.emailAddress;
    ids.space = me.space;
    const door = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Front door', controlType: 'door' })
    ).body;
    ids.door = door.id;
    doorCode = door.switchOnCode;
    await hub.api('PUT', `/resources/${door.id}/bridge`, {});
    const key = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey as string;
    await startOnlineDoorAgent(hub, door.id, key);
    ids.laser = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Laser cutter',
        controlType: 'machine',
        canBeBooked: true,
      })
    ).body.id;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body.id;
    await hub.api('POST', `/packages/${pkg}/permissions`, { type: 'everything' });
    const newMember = async (firstName: string, lastName: string, emailAddress: string) => {
      const m = (await hub.api('POST', '/members', { firstName, lastName, emailAddress })).body;
      await hub.api('POST', `/members/${m.id}/packages`, { package: pkg });
      return m.id as number;
    };
    ids.ada = await newMember('Ada', 'Lovelace', 'ada@spaces-test.example');
    ids.bo = await newMember('Bo', 'Plain', 'bo@spaces-test.example');
    const adaKey = (await hub.api('POST', '/api-keys', { member: ids.ada })).body;
    adaToken = (await hub.api('GET', `/api-keys/${adaKey.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: adaPassword }, adaToken)).status).toBe(204);

    browser = await launchChromium();
    admin = await desktop(browser);
    member = await phone(browser);
    // A locator that finds nothing fails within the poll rather than waiting 30 s.
    admin.page.setDefaultTimeout(5_000);
    member.page.setDefaultTimeout(5_000);
    await signInWithPassword(member.page, web, 'ada@spaces-test.example', adaPassword, '/');
  }, 120_000);

  consoleTestHooks('admin-spaces', () => ({ browser, pages: admin?.page }));

  it('an admin sets the time zone and opening hours, and the member then finds the space closed', async () => {
    const { page } = admin;
    await signInWithPassword(page, web, ownerEmail, adminPassword, '/admin/spaces');
    await expect.poll(() => page.getByRole('heading', { name: 'Spaces', level: 1 }).isVisible()).toBe(true);
    expect(await reason()).toBeNull();

    await page.getByLabel('Time zone', { exact: true }).fill(zone);
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Time zone saved: ${zone}.`);
    expect((await hub.api('GET', `/spaces/${ids.space}`)).body.timezone).toBe(zone);

    today = todayIn(zone);
    tomorrow = addDays(today, 1);
    const day = weekdays[weekdayIndex(tomorrow)];
    // Open only tomorrow, 09:00-17:00: closed now.
    await page.getByRole('button', { name: `Add hours on ${day}` }).click();
    await page.getByLabel(`${day} until`, { exact: true }).fill('17:00');
    await page.getByRole('button', { name: 'Save opening hours' }).click();
    // Closed now: the page warns first and saves when confirmed.
    await page.getByRole('button', { name: /^Save and close .* now$/ }).click();
    // Before it saves, the console shows who loses what in the next week (the hub simulated it).
    const preview = page.getByRole('alert', { name: 'Who gains and loses access' });
    await expect.poll(() => preview.isVisible()).toBe(true);
    const lines = await preview.getByRole('listitem').allTextContents();
    // Every day of the week: tomorrow too, outside 09:00-17:00.
    expect(lines).toContain('2 members lose Front door every day');
    await preview.getByText(/^Show the 4 member and resource changes$/).click();
    expect(await preview.getByRole('row', { name: /Ada Lovelace Laser cutter/ }).count()).toBe(1);
    // On a phone each cell is led by its column's name; in a narrow column the list scrolls
    // sideways rather than being cut off.
    expect(await preview.locator('td[data-label="Why"]').count()).toBe(4);
    // Why, in the console's language: the hours of the coming week, not "now".
    expect(await preview.locator('td[data-label="Why"]').allTextContents()).toContain('opening hours');
    expect(await preview.locator('details').evaluate((d) => getComputedStyle(d).overflowX)).toBe('auto');
    expect((await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body).toEqual([]);
    await saveScreenshot(page, 'admin-access-preview');
    await preview.getByRole('button', { name: 'Save anyway' }).click();
    await expect
      .poll(() => page.getByRole('form', { name: 'Opening hours' }).getByRole('status').textContent())
      .toBe('Opening hours saved.');
    expect((await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body).toEqual([
      { dayOfWeek: weekdayIndex(tomorrow) + 1, fromTime: '09:00', untilTime: '17:00' },
    ]);

    const v = await verdict();
    await expect.poll(() => v.textContent()).toMatch(/^The space is closed until \w{3} \d+ \w{3} 09:00\.$/);
    expect(await v.textContent()).toContain(dayLabel(tomorrow));
    expect(await reason()).toBe('openingHours');
  });

  it('opening today and adding a holiday: the member sees the holiday; edit and delete it', async () => {
    const { page } = admin;
    const day = weekdays[weekdayIndex(today)];
    await page.getByRole('button', { name: `Add hours on ${day}` }).click();
    await page.getByLabel(`${day} from`, { exact: true }).fill('00:00');
    await page.getByLabel(`${day} until`, { exact: true }).fill('24:00');
    await page.getByRole('button', { name: 'Save opening hours' }).click();
    await passPreview(page);
    await expect
      .poll(async () => (await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body.length)
      .toBe(2);
    await expect.poll(async () => (await verdict()).textContent()).toBe('You may use it now.');

    // Bad input: the hub's refusal shows and nothing changes.
    await page.getByLabel(`${day} until`, { exact: true }).fill('23:00');
    await page.getByLabel(`${day} from`, { exact: true }).fill('23:30');
    await page.getByRole('button', { name: 'Save opening hours' }).click();
    await expect
      .poll(() => page.getByRole('form', { name: 'Opening hours' }).getByRole('alert').textContent())
      .toMatch(/\S/);
    expect((await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body).toContainEqual({
      dayOfWeek: weekdayIndex(today) + 1,
      fromTime: '00:00',
      untilTime: '24:00',
    });
    await page.getByRole('button', { name: 'Undo changes' }).click();
    expect(await page.getByLabel(`${day} from`, { exact: true }).inputValue()).toBe('00:00');

    const form = page.getByRole('form', { name: 'New holiday' });
    await form.getByLabel('Title').fill('Staff outing');
    await form.getByLabel(`From (${zone})`).fill(`${today}T00:00`);
    await form.getByLabel(`Until (${zone})`).fill(`${tomorrow}T00:00`);
    await form.getByRole('button', { name: 'Add holiday' }).click();
    await form.getByRole('button', { name: 'Save anyway' }).click();
    const holidays = page.getByRole('list', { name: 'Holidays' });
    await expect.poll(() => holidays.getByRole('listitem', { name: 'Staff outing' }).count()).toBe(1);
    await expect
      .poll(async () => (await verdict()).textContent())
      .toMatch(/^The space is closed for a holiday/);
    expect(await reason()).toBe('holiday');

    await page.getByRole('button', { name: 'Edit Staff outing' }).click();
    const edit = page.getByRole('form', { name: 'Edit holiday Staff outing' });
    await edit.getByLabel('Title').fill('Staff outing and cleaning');
    await edit.getByRole('button', { name: 'Save holiday' }).click();
    await expect
      .poll(() => holidays.getByRole('listitem', { name: 'Staff outing and cleaning' }).count())
      .toBe(1);
    const stored = (await hub.api('GET', `/spaces/${ids.space}/holidays`)).body;
    expect(stored).toEqual([
      expect.objectContaining({
        title: 'Staff outing and cleaning',
        fromDateTime: `${today}T00:00`,
        untilDateTime: `${tomorrow}T00:00`,
      }),
    ]);

    await page.getByRole('button', { name: 'Delete Staff outing and cleaning' }).click();
    // Deleting today's holiday opens the space again: the console says for whom first.
    const preview = page.getByRole('alert', { name: 'Who gains and loses access' });
    await expect
      .poll(() => preview.getByRole('listitem').allTextContents())
      .toContain(`2 members gain Front door on ${weekdays[weekdayIndex(today)]}s`);
    await preview.getByRole('button', { name: 'Delete anyway' }).click();
    await expect.poll(() => holidays.textContent()).toBe('No upcoming holidays.');
    expect((await hub.api('GET', `/spaces/${ids.space}/holidays`)).body).toEqual([]);
    await expect.poll(async () => (await verdict()).textContent()).toBe('You may use it now.');

    // A holiday ahead, for the page as admins see it.
    const year = Number(today.slice(0, 4)) + (today.slice(5) > '12-24' ? 1 : 0);
    await form.getByLabel('Title').fill('Christmas');
    await form.getByLabel(`From (${zone})`).fill(`${year}-12-24T12:00`);
    await form.getByLabel(`Until (${zone})`).fill(`${year}-12-27T00:00`);
    await form.getByRole('button', { name: 'Add holiday' }).click();
    await expect.poll(() => holidays.getByRole('listitem', { name: 'Christmas' }).count()).toBe(1);
  });

  it('a week of opening hours: ranges removed and added for several days, saved as one list', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: `Remove ${weekdays[weekdayIndex(today)]} hours` }).click();
    await page.getByRole('button', { name: `Remove ${weekdays[weekdayIndex(tomorrow)]} hours` }).click();
    const week: [string, string, string][] = [
      ['Monday', '10:00', '22:00'],
      ['Tuesday', '10:00', '22:00'],
      ['Wednesday', '10:00', '22:00'],
      ['Thursday', '10:00', '22:00'],
      ['Friday', '10:00', '22:00'],
      ['Saturday', '10:00', '18:00'],
    ];
    for (const [day, from, until] of week) {
      await page.getByRole('button', { name: `Add hours on ${day}` }).click();
      await page.getByLabel(`${day} from`, { exact: true }).fill(from);
      await page.getByLabel(`${day} until`, { exact: true }).fill(until);
    }
    // A second range on Saturday evening.
    await page.getByRole('button', { name: 'Add hours on Saturday' }).click();
    await page.getByLabel('Saturday from (2)', { exact: true }).fill('19:00');
    await page.getByLabel('Saturday until (2)', { exact: true }).fill('23:00');
    await saveHours(page);
    await expect
      .poll(async () => (await hub.api('GET', `/spaces/${ids.space}/opening-hours`)).body)
      .toEqual([
        ...week.map(([, fromTime, untilTime], i) => ({ dayOfWeek: i + 1, fromTime, untilTime })),
        { dayOfWeek: 6, fromTime: '19:00', untilTime: '23:00' },
      ]);
    expect(await page.getByRole('form', { name: 'Opening hours' }).getByRole('status').textContent()).toBe(
      'Opening hours saved.',
    );
    await saveScreenshot(page, 'admin-spaces');
  });

  it('books a free slot in the week calendar; a holiday, closed hours, a conflict and the booking window each show the refusing rule; cancel', async () => {
    const { page } = admin;
    const monday = addDays(today, 7 - weekdayIndex(today));
    const holiday = await hub.api('POST', `/spaces/${ids.space}/holidays`, {
      title: 'Inventory day',
      fromDateTime: `${addDays(monday, 3)}T00:00`,
      untilDateTime: `${addDays(monday, 4)}T00:00`,
    });
    expect(holiday.status).toBe(201);
    await adminNav('Bookings');
    await page.getByLabel('Resource').selectOption({ label: 'Laser cutter' });
    await page.getByRole('button', { name: 'Next week' }).click();
    await expect
      .poll(() => page.getByRole('heading', { level: 2 }).first().textContent())
      .toContain(`Laser cutter, week of ${dayLabel(monday)}`);
    // Next week's Tuesday: open 10:00-22:00, and ahead of now whatever today is.
    const date = addDays(monday, 1);
    const column = page.getByRole('region', { name: dayLabel(date) });
    await page.getByRole('button', { name: `Book ${dayLabel(date)} 10:00` }).click();
    const form = page.getByRole('form', { name: 'New booking' });
    // The form takes the chosen hour after the click's render: polled, not read at once.
    await expect.poll(() => form.getByLabel('Day').inputValue()).toBe(date);
    await expect.poll(() => form.getByLabel(`From (${zone})`).inputValue()).toBe('10:00');
    await form.getByLabel('Find a member').fill('Lovelace');
    await expect
      .poll(() => form.getByRole('combobox', { name: 'Member' }).locator('option:checked').textContent())
      .toContain('Ada Lovelace');
    await form.getByLabel(`Until (${zone})`).fill('12:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain('Booked Laser cutter for Ada Lovelace');
    await expect
      .poll(() => column.getByRole('listitem', { name: 'Ada Lovelace 10:00–12:00' }).count())
      .toBe(1);
    const stored = (await hub.api('GET', `/bookings?resource=${ids.laser}&state=confirmed`)).body;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ member: ids.ada });
    // 10:00 in Vienna: UTC+1 in winter, +2 in summer.
    expect(new Date(stored[0].fromDateTime).toLocaleTimeString('en-GB', { timeZone: zone })).toBe('10:00:00');

    // Bo's bookings: each refusal names the rule that refused it.
    await form.getByLabel('Find a member').fill('Plain');
    await expect
      .poll(() => form.getByRole('combobox', { name: 'Member' }).locator('option:checked').textContent())
      .toContain('Bo Plain');
    const alert = page.getByRole('alert');
    // The holiday on Thursday is striped in its column and refuses bookings.
    const thursday = addDays(monday, 3);
    expect(await page.getByRole('region', { name: dayLabel(thursday) }).textContent()).toContain(
      'Inventory day',
    );
    await form.getByLabel('Day').fill(thursday);
    await form.getByLabel(`From (${zone})`).fill('12:00');
    await form.getByLabel(`Until (${zone})`).fill('13:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect.poll(() => alert.textContent()).toContain('Refused by the rule “Holiday” (holiday)');
    expect(await alert.textContent()).toContain(
      `Inventory day: ${dayLabel(thursday)} ${thursday.slice(0, 4)} 00:00`,
    );
    await form.getByLabel('Day').fill(date);
    // Past closing time (22:00) the opening-hours rule refuses.
    await form.getByLabel(`From (${zone})`).fill('21:00');
    await form.getByLabel(`Until (${zone})`).fill('23:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => alert.textContent())
      .toContain('Refused by the rule “Opening hours” (outsideOpeningHours)');
    // 11:00-13:00 the same day as Ada's: the page names the rule and who is in the way.
    await form.getByLabel(`From (${zone})`).fill('11:00');
    await form.getByLabel(`Until (${zone})`).fill('13:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => alert.textContent())
      .toContain('Refused by the rule “Conflict with another booking” (overlappingBooking)');
    expect(await alert.textContent()).toContain(`Ada Lovelace has it booked ${dayLabel(date)} 10:00–12:00.`);
    expect((await hub.api('GET', `/bookings?resource=${ids.laser}&state=confirmed`)).body).toHaveLength(1);
    await saveScreenshot(page, 'admin-bookings');

    await column
      .getByRole('button', { name: `Cancel booking of Ada Lovelace, ${dayLabel(date)} 10:00–12:00` })
      .click();
    await expect.poll(() => column.getByRole('listitem').count()).toBe(0);
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain('Cancelled the booking of Ada Lovelace');
    expect((await hub.api('GET', `/bookings/${stored[0].id}`)).body.state).toBe('cancelled');

    // More than 14 days ahead: the member's booking window refuses, unless the admin overrides it.
    const later = addDays(monday, 15);
    await form.getByLabel('Day').fill(later);
    await form.getByLabel(`From (${zone})`).fill('10:00');
    await form.getByLabel(`Until (${zone})`).fill('11:00');
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => alert.textContent())
      .toContain('Refused by the rule “Booking window” (outsideBookingWindow)');
    await form.getByLabel("Hold to the member's rules").uncheck();
    await form.getByRole('button', { name: 'Book' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain('Booked Laser cutter for Bo Plain');
    await expect
      .poll(() =>
        page
          .getByRole('region', { name: dayLabel(later) })
          .getByRole('listitem', { name: 'Bo Plain 10:00–11:00' })
          .count(),
      )
      .toBe(1);
  }, 60_000);

  it('a member who opens the spaces page gets the admins-only page, and the API refuses them', async () => {
    await member.page.goto(`${web}/admin/spaces`);
    await expect.poll(() => member.page.getByRole('heading', { name: 'For admins only' }).count()).toBe(1);
    expect(await member.page.getByRole('button', { name: 'Save opening hours' }).count()).toBe(0);
    const status = await member.page.evaluate(async (space) => {
      const csrf = (await (await fetch('/api/v1/user/sessions/current')).json()).csrfToken;
      return (
        await fetch(`/api/v1/spaces/${space}/opening-hours`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: '[]',
        })
      ).status;
    }, ids.space);
    expect(status).toBe(403);
  });
});
