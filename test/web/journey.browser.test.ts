import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserTestsEnabled,
  desktop,
  freePort,
  launchChromium,
  phone,
  saveScreenshot,
  saveThroughAccessPreview,
} from '../support/browser.js';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import {
  agentCli,
  hubCli,
  type Proc,
  runProcess,
  startProcess,
  stopAll,
  tempDir,
} from '../support/processes.js';

/**
 * The whole makerspace set up and run from the console, on an empty hub, through the web app
 * alone: the test never calls the API itself. What it does besides the browser is what an
 * operator does at a terminal (the hub's and the agent's commands) and what a relay would show
 * (the simulated relay's state file).
 */

const zone = 'Europe/Vienna';
const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
/** Today's date in the space's zone. */
const todayIn = (tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date());
const addDays = (date: string, days: number) => {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};
const weekdayOf = (date: string) => weekdays[(new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7];

/** A Pi paired with the command the console showed, running its agent with simulated hardware. */
interface Pi {
  dir: string;
  configFile: string;
  agent: Proc;
  relay(): 'on' | 'off' | null;
  tap(card: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

describe.runIf(browserTestsEnabled())('the whole journey, from an empty hub, through the console', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let owner: { context: BrowserContext; page: Page };
  let member: { context: BrowserContext; page: Page };
  const ownerPassword = 'journey-owner-walnut-7731';
  const memberPassword = 'journey-member-maple-2288';
  const card = '5A6B7C8D9E';

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name, exact: true }).click();
  const heading = (page: Page, name: string) =>
    expect.poll(() => page.getByRole('heading', { name, level: 1 }).isVisible()).toBe(true);

  /** Opens a pairing panel, runs its one line as `makerspace-agent pair` would on a Pi, starts the agent. */
  async function pair(page: Page, name: string): Promise<Pi> {
    await page.getByRole('button', { name: `Pair a bridge for ${name}` }).click();
    const command = await page.getByLabel('Pairing command').inputValue();
    const match = command.match(/^makerspace-agent pair (\S+) ([A-Z0-9-]+)$/);
    expect(match?.[1]).toBe(web);
    const dir = tempDir('journey-pi-');
    const paired = await runProcess(
      [agentCli, 'pair', match![1], match![2], '--dir', dir, '--data-dir', join(dir, 'data')],
      {},
    );
    expect(paired.stderr).toBe('');
    expect(paired.code).toBe(0);
    const configFile = join(dir, 'config.json');
    const agent = startProcess([agentCli, 'run', '--config', configFile], { LOG_LEVEL: 'info' });
    await agent.waitFor(/connected to the hub/, 30_000);
    const stateFile = join(dir, 'data', 'relay.json');
    return {
      dir,
      configFile,
      agent,
      relay: () => (existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')).relay : null),
      tap: (token) => runProcess([agentCli, 'tap', '--config', configFile, '--token', token], {}),
    };
  }

  beforeAll(async () => {
    const httpPort = await freePort();
    web = `http://127.0.0.1:${httpPort}`;
    // No mail server: links are shown in the console and printed by the hub's command.
    hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web } });
    browser = await launchChromium();
    owner = await desktop(browser);
    member = await phone(browser);
    // A missing element fails its step with a clear message before the test's own time runs out.
    owner.page.setDefaultTimeout(20_000);
    member.page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stopAll();
  }, 60_000);

  it('the owner sets up the space, a member uses the laser, the owner bills it and finds it again', async () => {
    const { page } = owner;
    try {
      // 1. The owner's first sign-in: a one-use link from the hub's command, which asks for a password.
      const made = await runProcess([hubCli, 'sign-in-link', '--member', 'owner@makerspace.invalid'], {
        HUB_DATA_DIR: hub.dataDir,
        HUB_PUBLIC_URL: web,
        LOG_LEVEL: 'warn',
      });
      expect(made.code).toBe(0);
      const ownerLink = made.stdout.trim();
      expect(ownerLink).toMatch(new RegExp(`^${web}/sign-in/link#token=[A-Za-z0-9_-]+$`));
      await page.goto(ownerLink);
      await page.getByLabel('New password').fill(ownerPassword);
      await page.getByRole('button', { name: 'Save password' }).click();
      await page.waitForURL(`${web}/`);
      await page.getByRole('link', { name: 'Admin', exact: true }).click();
      await heading(page, 'Dashboard');
      // A new hub: the dashboard lists what is still to set up.
      const checklist = page.getByRole('list', { name: 'First-run checklist' });
      await expect.poll(() => checklist.getByRole('listitem').count()).toBe(7);

      // 2. Spaces: the time zone, and opening hours (today and tomorrow all day, so the journey runs
      // at any hour; the other days 09:00 to 21:00).
      await nav(page, 'Spaces');
      await heading(page, 'Spaces');
      await page.getByLabel('Time zone', { exact: true }).fill(zone);
      await page.getByRole('button', { name: 'Save time zone' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe(`Time zone saved: ${zone}.`);
      const today = todayIn(zone);
      const allDay = [weekdayOf(today), weekdayOf(addDays(today, 1))];
      for (const day of weekdays) {
        await page.getByRole('button', { name: `Add hours on ${day}` }).click();
        const [from, until] = allDay.includes(day) ? ['00:00', '24:00'] : ['09:00', '21:00'];
        await page.getByLabel(`${day} from`, { exact: true }).fill(from);
        await page.getByLabel(`${day} until`, { exact: true }).fill(until);
      }
      await page.getByRole('button', { name: 'Save opening hours' }).click();
      await expect
        .poll(() => page.getByRole('form', { name: 'Opening hours' }).getByRole('status').textContent())
        .toBe('Opening hours saved.');

      // 3. Resources: a door, and a laser with a price per use that requires a training.
      await nav(page, 'Resources');
      await heading(page, 'Resources and bridges');
      const resourceRow = (name: string) =>
        page.getByRole('table', { name: 'Doors and machines' }).getByRole('row', { name, exact: true });
      await page.getByRole('button', { name: 'New resource' }).click();
      let create = page.getByRole('form', { name: 'New resource' });
      await create.getByLabel('Name', { exact: true }).fill('Front door');
      await create.getByLabel('Control type').selectOption('door');
      await create.getByRole('button', { name: 'Create resource' }).click();
      await expect.poll(() => page.getByRole('form', { name: 'Edit Front door' }).isVisible()).toBe(true);
      await expect.poll(() => resourceRow('Front door').count()).toBe(1);

      await page.getByRole('button', { name: 'New resource' }).click();
      create = page.getByRole('form', { name: 'New resource' });
      await create.getByLabel('Name', { exact: true }).fill('Laser');
      await create.getByLabel('Control type').selectOption('machine');
      await create.getByLabel('Requires a training').check();
      await create.getByRole('button', { name: 'Create resource' }).click();
      const laserForm = page.getByRole('form', { name: 'Edit Laser' });
      await expect.poll(() => laserForm.isVisible()).toBe(true);
      await laserForm.getByLabel('Price per use').fill('2.00');
      await laserForm.getByRole('button', { name: 'Save Laser' }).click();
      await expect.poll(() => laserForm.getByText('Saved Laser.').count()).toBe(1);
      // Its id and switch-on code, as the admin reads them off the page (the sticker's link and code).
      const stickerHref = await page
        .getByRole('link', { name: 'Print the sticker of Laser' })
        .getAttribute('href');
      const laserId = Number(stickerHref?.match(/^\/stickers\?ids=(\d+)$/)?.[1]);
      expect(laserId).toBeGreaterThan(0);
      const laserCode = (await page.getByTestId('switch-on-code').textContent())!;
      expect(laserCode.length).toBeGreaterThanOrEqual(6);

      // 4. Trainings: a course that unlocks the laser.
      await nav(page, 'Trainings');
      await heading(page, 'Trainings');
      await page.getByRole('button', { name: 'New course' }).click();
      const course = page.getByRole('form', { name: 'New course' });
      await course.getByLabel('Title').fill('Laser safety');
      await course.getByLabel('Valid for').fill('1');
      await course.getByLabel('Unit').selectOption({ label: 'Years' });
      await course.getByLabel('Laser', { exact: true }).check();
      await course.getByRole('button', { name: 'Create course' }).click();
      await expect
        .poll(() =>
          page
            .getByRole('table', { name: 'Training courses' })
            .getByRole('row', { name: 'Laser safety' })
            .textContent(),
        )
        .toContain('1 year');

      // 5. Packages: a monthly package whose permission holds at the times of a table.
      await nav(page, 'Packages');
      await heading(page, 'Packages');
      await page.getByRole('button', { name: 'New package' }).click();
      const pkg = page.getByRole('form', { name: 'New package' });
      await pkg.getByLabel('Name').fill('Maker');
      await pkg.getByLabel('Recurring fee').fill('30.00');
      await pkg.getByRole('button', { name: 'Create package' }).click();
      await expect
        .poll(() =>
          page.getByRole('table', { name: 'Packages' }).getByRole('row', { name: 'Maker' }).textContent(),
        )
        .toContain('30.00 a month');
      const details = page.getByRole('region', { name: 'Package details' });
      await details.getByRole('button', { name: 'Add permission' }).click();
      const perm = details.getByRole('form', { name: 'New permission' });
      await perm.getByLabel('Allows').selectOption({ label: 'Everything' });
      await perm.getByLabel('When').selectOption({ label: 'At these times' });
      await perm.getByRole('button', { name: 'Add time' }).click();
      for (const [i, day] of allDay.entries()) {
        const time = perm.getByRole('group', { name: `Time ${i + 1}` });
        await time.getByLabel('Day').selectOption({ label: day });
        await time.getByLabel('From').fill('00:00');
        // An end at midnight is the end of that day.
        await time.getByLabel('Until').fill('00:00');
      }
      await perm.getByRole('button', { name: 'Save permission' }).click();
      const short = (day: string) => day.slice(0, 3);
      await expect
        .poll(() => details.getByRole('region', { name: 'Permissions' }).textContent())
        .toMatch(new RegExp(`${short(allDay[0])} 00:00–24:00.*${short(allDay[1])} 00:00–24:00`));

      // 6. Bridges: a Pi for each, paired with the line the page shows.
      await nav(page, 'Resources');
      await heading(page, 'Resources and bridges');
      await resourceRow('Front door').getByRole('button', { name: 'Front door' }).click();
      const door = await pair(page, 'Front door');
      await expect
        .poll(() => resourceRow('Front door').getByTestId('bridge-state').textContent(), { timeout: 30_000 })
        .toBe('Online');
      await page.getByRole('button', { name: 'Close' }).click();
      await resourceRow('Laser').getByRole('button', { name: 'Laser' }).click();
      const laser = await pair(page, 'Laser');
      await expect
        .poll(() => resourceRow('Laser').getByTestId('bridge-state').textContent(), { timeout: 30_000 })
        .toBe('Online');
      await page.getByRole('button', { name: 'Close' }).click();
      expect(laser.relay()).not.toBe('on');

      // 7. Members: a new member, invited; without mail the page shows the link to hand over,
      // which the member opens on their phone and chooses a password.
      await nav(page, 'Members');
      await heading(page, 'Members');
      await page.getByRole('button', { name: 'New member' }).click();
      const newMember = page.getByRole('form', { name: 'New member' });
      await newMember.getByLabel('First name').fill('Ada');
      await newMember.getByLabel('Last name').fill('Lovelace');
      await newMember.getByLabel('E-mail address').fill('ada@journey.example');
      await newMember.getByRole('button', { name: 'Create member' }).click();
      await expect.poll(() => page.getByRole('form', { name: 'Edit Ada Lovelace' }).isVisible()).toBe(true);
      await page.getByRole('button', { name: 'Invite Ada Lovelace' }).click();
      await expect
        .poll(() => page.getByRole('status').filter({ hasText: 'hand this link' }).textContent())
        .toContain('No mail server is set up: hand this link to the member');
      const invitation = await page.getByLabel('Invitation link').inputValue();
      expect(invitation).toMatch(new RegExp(`^${web}/sign-in/link#token=`));
      await member.page.goto(invitation);
      await expect
        .poll(() => member.page.getByRole('heading', { name: 'Welcome, Ada' }).isVisible())
        .toBe(true);
      await member.page.getByLabel('New password').fill(memberPassword);
      await member.page.getByRole('button', { name: 'Save password' }).click();
      await member.page.waitForURL(`${web}/`);

      // 8. The member's page: the package (its first charge shown before saving) and the training.
      const packages = page.getByRole('region', { name: 'Packages', exact: true });
      await packages.getByRole('button', { name: 'Give Ada Lovelace a package' }).click();
      const give = packages.getByRole('form', { name: 'Give Ada Lovelace a package' });
      await give.getByLabel('Package').selectOption({ label: 'Maker' });
      await expect.poll(() => give.getByRole('region', { name: 'Charges' }).textContent()).toContain('30.00');
      await give.getByRole('button', { name: 'Give Maker' }).click();
      // Before it saves, the console says what the package opens for Ada in the next week.
      await expect
        .poll(() => give.getByRole('alert', { name: 'Who gains and loses access' }).textContent())
        .toContain('Ada Lovelace gains');
      await give.getByRole('button', { name: 'Save anyway' }).click();
      await expect
        .poll(() => packages.getByRole('table', { name: 'Packages of Ada Lovelace' }).textContent())
        .toContain('Maker');
      // With the package but no training yet, the laser's page names the course the member lacks.
      const sticker = `${web}/r/${laserId}?c=${encodeURIComponent(laserCode)}`;
      await member.page.goto(sticker);
      await expect
        .poll(() => member.page.getByTestId('verdict').textContent(), { timeout: 30_000 })
        .toBe('Training “Laser safety” missing.');
      const trainings = page.getByRole('region', { name: 'Trainings', exact: true });
      await trainings.getByRole('button', { name: 'Record a training of Ada Lovelace' }).click();
      const record = trainings.getByRole('form', { name: 'Record a training of Ada Lovelace' });
      await record.getByLabel('Course').selectOption({ label: 'Laser safety' });
      await record.getByLabel('Date').fill(today);
      await record.getByLabel('Trainer').fill('Grace Hopper');
      await record.getByRole('button', { name: 'Record training' }).click();
      await saveThroughAccessPreview(record);
      await expect
        .poll(() => trainings.getByRole('list', { name: 'Trainings of Ada Lovelace' }).textContent())
        .toContain('Laser safety');

      // 9. Key cards: the member's card, assigned by tapping it at the door's reader.
      await nav(page, 'Key cards');
      await heading(page, 'Key cards');
      await page.getByLabel('Find a member (name, e-mail, member number)').fill('Lovelace');
      await expect.poll(() => page.getByTestId('member-key').textContent()).toBe('Ada Lovelace has no card.');
      await page.getByLabel('Reader').selectOption({ label: 'Front door' });
      await page.getByRole('button', { name: 'Assign by tapping' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toMatch(/Tap the card at Front door now/);
      expect((await door.tap(card)).code).toBe(0);
      await expect
        .poll(() => page.getByTestId('member-key').textContent())
        .toBe(`Ada Lovelace's card: ${card} (em4102, active)`);
      // The card now opens the door (once the door has shut after the tap that assigned it).
      await expect.poll(() => door.relay(), { timeout: 30_000 }).not.toBe('on');
      expect((await door.tap(card)).code).toBe(0);
      await expect.poll(() => door.relay(), { timeout: 15_000 }).toBe('on');

      // 10. The member at the laser, on their phone: the sticker's page, Switch on, Switch off.
      await member.page.goto(sticker);
      await expect
        .poll(() => member.page.getByTestId('verdict').textContent(), { timeout: 30_000 })
        .toContain('You may use it now');
      await member.page.getByRole('button', { name: 'Switch on' }).click();
      await expect.poll(() => laser.relay(), { timeout: 15_000 }).toBe('on');
      await expect
        .poll(() => member.page.getByRole('button', { name: 'Switch off' }).isVisible(), { timeout: 15_000 })
        .toBe(true);
      // A short cut: long enough to be billed as a minute begun.
      await member.page.waitForTimeout(1_500);
      await member.page.getByRole('button', { name: 'Switch off' }).click();
      await expect.poll(() => laser.relay(), { timeout: 15_000 }).toBe('off');
      await expect
        .poll(() => member.page.getByRole('button', { name: 'Switch on' }).isVisible(), { timeout: 15_000 })
        .toBe(true);

      // 11. Billing: the invoice run, previewed, then run; the laser's use is a line of the invoice,
      // which a cash payment settles.
      await nav(page, 'Billing');
      await heading(page, 'Billing');
      const run = page.getByRole('region', { name: 'Invoice run' });
      await run.getByRole('button', { name: 'Preview invoice run' }).click();
      const preview = run.getByTestId('invoice-run-preview');
      await expect
        .poll(() => preview.textContent(), { timeout: 20_000 })
        .toContain('1 member would be invoiced, 32.00 in all.');
      await run.getByRole('button', { name: 'Run invoices for 1 member' }).click();
      await expect
        .poll(() => run.getByRole('status').textContent(), { timeout: 30_000 })
        .toBe('Made 1 invoice.');
      const invoices = page.getByRole('region', { name: 'Invoices' });
      const open = invoices.getByRole('button', { name: /^Open invoice / });
      await expect.poll(() => open.count()).toBe(1);
      const number = (await open.textContent())!.replace(/^Open invoice /, '').trim();
      await open.click();
      const view = page.getByRole('region', { name: `Invoice ${number}` });
      const lines = view.getByRole('table', { name: `Lines of Invoice ${number}` });
      const use = lines.getByRole('row').filter({ hasText: 'Laser: 1 min' });
      await expect.poll(() => use.count()).toBe(1);
      expect(await use.textContent()).toContain('2.00');
      expect(await lines.textContent()).toContain('Maker');
      expect(await view.getByTestId('invoice-state').textContent()).toBe('unpaid');
      await view.getByRole('button', { name: `Record a payment for ${number}` }).click();
      const pay = view.getByRole('form', { name: `Record a payment for ${number}` });
      expect(await pay.getByLabel('Amount').inputValue()).toBe('32.00');
      await pay.getByLabel('Method').selectOption('cash');
      await pay.getByRole('button', { name: 'Save payment' }).click();
      await expect.poll(() => view.getByTestId('invoice-state').textContent()).toBe('paid');
      // The lists read again: the invoice paid, the payment listed, no balance open.
      await expect
        .poll(() => page.getByTestId('invoices-totals').textContent())
        .toBe('1 invoice: 32.00 (paid 32.00, open 0.00)');
      await expect
        .poll(() => page.getByTestId('payments-totals').textContent())
        .toMatch(/^1 payment: 32\.00 /);
      expect(await page.getByRole('table', { name: 'Payments' }).textContent()).toContain('cash');
      await expect
        .poll(() => page.getByRole('table', { name: 'Open balances' }).textContent())
        .toContain("Every member's balance is settled.");
      // The charge is dated as its invoice line is: in the space's time.
      const charged = page
        .getByRole('table', { name: 'Charges' })
        .getByRole('row')
        .filter({ hasText: 'Laser: 1 min' });
      const chargedAt = (await charged.getByRole('cell').first().textContent())!;
      expect(await use.getByRole('cell').first().textContent()).toBe(chargedAt);
      await saveScreenshot(page, 'journey-invoice');

      // 12. Activity, filtered to the laser and its uses: the member's session.
      await nav(page, 'Activity');
      await heading(page, 'Activity');
      const filters = page.getByRole('form', { name: 'Filter the activity' });
      await filters.getByLabel('Resource').selectOption({ label: 'Laser' });
      await filters.getByLabel('Outcome').selectOption({ label: 'Allowed' });
      await expect
        .poll(() => page.getByTestId('activity-count').textContent())
        .toBe('1 entry, newest first.');
      const session = page.getByRole('table', { name: 'Activity' }).getByRole('row').nth(1);
      expect(await session.textContent()).toContain('Laser');
      expect(await session.textContent()).toContain('Ada Lovelace');

      // 13. Reports: the laser's use, one session.
      await nav(page, 'Reports');
      await heading(page, 'Reports');
      const usage = page.getByRole('table', { name: 'Use per resource: totals', exact: true });
      await expect
        .poll(async () =>
          (
            await usage
              .getByRole('row', { name: /^Laser/ })
              .getByRole('cell')
              .allTextContents()
          ).slice(0, 2),
        )
        .toEqual(['Laser', '1']);

      // Everything on the first-run checklist is done: it has left the dashboard.
      await nav(page, 'Dashboard');
      await heading(page, 'Dashboard');
      await expect.poll(() => page.getByRole('list', { name: 'First-run checklist' }).count()).toBe(0);
    } catch (err) {
      await page.screenshot({ path: join(tmpdir(), 'journey-failed-owner.png'), fullPage: true });
      await member.page.screenshot({ path: join(tmpdir(), 'journey-failed-member.png'), fullPage: true });
      throw err;
    }
  }, 240_000);
});
