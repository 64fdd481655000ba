import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleHub,
  screenshotsOnFailure,
  setSpaceTimeZone,
  startConsoleHub,
} from '../support/admin-console.js';
import { browserTestsEnabled, launchChromium, saveScreenshot } from '../support/browser.js';
import { startOnlineDoorAgent } from '../support/e2e.js';
import { repoRoot, stopAll } from '../support/processes.js';

/**
 * The member pages in German for a member whose `language` is `de`, on a 360 px phone whose
 * browser asks for English (the member's language decides): no English sentence of the English
 * catalog is left on any of them, in the text or in what a screen reader reads out.
 */

type Catalog = { [key: string]: string | Catalog };
const catalog = (language: string): Catalog =>
  JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n', `${language}.json`), 'utf8'));
const flatten = (c: Catalog): string[] =>
  Object.values(c).flatMap((v) => (typeof v === 'string' ? [v] : flatten(v)));

/**
 * The English catalog's sentences as fixed pieces (cut at the {{placeholders}}): a piece of two
 * words or more that no German message contains too ("Check-in", "PDF" read the same in both).
 */
function englishPieces(): string[] {
  const german = [...flatten(catalog('de')), ...flatten(catalog('admin-de'))].join('\n');
  const pieces = [...flatten(catalog('en')), ...flatten(catalog('admin-en'))]
    .flatMap((text) => text.split(/\{\{[^}]*\}\}/))
    .map((piece) => piece.trim().replace(/^[\s:;,.()·–-]+|[\s:;,.()·–-]+$/g, ''))
    .filter((piece) => /\p{L}+\s+\p{L}+/u.test(piece) && !german.includes(piece));
  return [...new Set(pieces)];
}
const pieces = englishPieces();
/** Small English words that German sentences do not use. */
const englishWords = /\b(the|your|you|and|is|are|to|of|with|not|this|no)\b/i;

/** What the page shows and reads out: its text, and its labels, titles and placeholders. */
async function shownText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const attributes = [...document.querySelectorAll('[aria-label],[title],[placeholder],[alt]')].flatMap(
      (e) => ['aria-label', 'title', 'placeholder', 'alt'].map((a) => e.getAttribute(a) ?? ''),
    );
    return [document.body.innerText, ...attributes].join('\n');
  });
}

/** Fails with every English piece the page still shows. */
async function expectNoEnglish(page: Page, where: string, width = 360): Promise<void> {
  const text = await shownText(page);
  const left = pieces.filter((piece) => text.includes(piece));
  const lines = text.split('\n').filter((line) => englishWords.test(line));
  expect({ where, left, lines }).toEqual({ where, left: [], lines: [] });
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
  // Nothing to scroll sideways on the phone, in German's longer words either.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

async function germanPhone(
  browser: Browser,
  locale: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    locale,
    timezoneId: 'Europe/Berlin',
  });
  return { context, page: await context.newPage() };
}

describe.runIf(browserTestsEnabled())('the member pages in German (Chromium, 360 px)', () => {
  let started: ConsoleHub;
  let browser: Browser;
  let greta: { context: BrowserContext; page: Page };
  const ids = { greta: 0, door: 0, laser: 0 };
  let doorCode = '';
  const password = 'drehbank-dienstag-4417';

  beforeAll(async () => {
    started = await startConsoleHub('owner-password-3391-lathe');
    const { hub } = started;
    const space = started.owner.space;
    await setSpaceTimeZone(hub, space, 'Europe/Berlin');
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await hub.api(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const frontDoor = await api('POST', '/resources', {
      space,
      name: 'Haustür',
      controlType: 'door',
      pulseSeconds: 2,
    });
    await api('PUT', `/resources/${frontDoor.id}/bridge`, {});
    const key = (await api('GET', `/resources/${frontDoor.id}/bridge/api-key`)).apiKey;
    ids.door = frontDoor.id;
    doorCode = frontDoor.switchOnCode;
    await startOnlineDoorAgent(hub, frontDoor.id, key);
    // A machine without a controller yet, bookable, with a price per hour.
    ids.laser = (
      await api('POST', '/resources', {
        space,
        name: 'Lasercutter',
        controlType: 'machine',
        canBeBooked: true,
        pricePerTimeBusy: '12.00',
        pricePerTimeBusySeconds: 3600,
      })
    ).id;
    const member = await api('POST', '/members', {
      firstName: 'Greta',
      lastName: 'Gruber',
      emailAddress: 'greta@sprachen.example',
      language: 'de',
    });
    ids.greta = member.id;
    const pkg = await api('POST', '/packages', { name: 'Vollmitgliedschaft' });
    await api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await api('POST', `/members/${ids.greta}/packages`, { package: pkg.id, fromDate: '2026-01-01' });
    await api('PUT', `/members/${ids.greta}/key`, { type: 'em4102', token: '0A1B2C3D4E' });
    const course = await api('POST', '/training-courses', { title: 'Lasersicherheit' });
    await api('POST', `/members/${ids.greta}/trainings`, { trainingCourse: course.id });
    await api('POST', '/charges', { member: ids.greta, price: '23.50', description: 'Mitgliedsbeitrag' });
    await api('POST', '/invoices', { member: ids.greta, date: '2026-11-30' });
    // Strangers may join: the join page is a member page too.
    await api('PUT', `/spaces/${space}/house-rules`, {
      houseRules: '<p>Hinterlass jede Maschine sauber.</p>',
      waiver: '<p>Ich benutze die Maschinen auf eigene Gefahr.</p>',
    });
    await api('PUT', `/spaces/${space}/sign-up-settings`, { enabled: true, packages: [pkg.id] });
    await api('PUT', `/packages/${pkg.id}`, {
      recurringFee: '35.00',
      lockVersion: (await api('GET', `/packages/${pkg.id}`)).lockVersion,
    });
    const apiKey = await api('POST', '/api-keys', { member: ids.greta });
    const token = (await api('GET', `/api-keys/${apiKey.id}/token`)).token;
    expect((await hub.api('PUT', '/user/password', { password }, token)).status).toBe(204);
    browser = await launchChromium();
  }, 120_000);

  afterEach(({ task }) => screenshotsOnFailure(task, 'german', greta?.page));
  afterAll(async () => {
    await browser?.close();
    await stopAll();
  }, 60_000);

  it('before sign-in the browser’s language decides: the sign-in page in German', async () => {
    const stranger = await germanPhone(browser, 'de-DE');
    const { page } = stranger;
    await page.goto(`${started.web}/r/${ids.door}?c=${doorCode}`);
    await page.getByRole('heading', { name: 'Anmelden' }).waitFor();
    await expectNoEnglish(page, 'sign-in');
    await saveScreenshot(page, 'member-sign-in-de');
    await page.goto(`${started.web}/join`);
    await page.getByRole('heading', { name: /^Mitglied werden bei/ }).waitFor();
    await expect.poll(() => page.getByText(/35,00 pro Monat/).isVisible()).toBe(true);
    await expectNoEnglish(page, 'join');
    await saveScreenshot(page, 'join-de');
    await stranger.context.close();
  });

  it('signed in, the member’s language decides although the browser asks for English', async () => {
    greta = await germanPhone(browser, 'en-GB');
    const { page } = greta;
    await page.goto(`${started.web}/`);
    // The sign-in page follows the browser (English), and the check finds its English; from
    // sign-in on, Greta's own language.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const english = await shownText(page);
    expect(pieces.filter((piece) => english.includes(piece)).length).toBeGreaterThan(3);
    await page.getByLabel('E-mail address').fill('greta@sprachen.example');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Hallo, Greta' }).waitFor();
    await page.getByRole('heading', { name: 'Meine Einweisungen' }).waitFor();
    await expect.poll(() => page.getByText('Lasersicherheit').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('open-invoices').textContent()).toMatch(/23,50\s€ zu zahlen/);
    await expect
      .poll(() =>
        page
          .getByText('Karte …2C3D4E')
          .isVisible()
          .catch(() => false),
      )
      .toBe(false);
    await expect.poll(() => page.getByText(/Karte …3D4E/).isVisible()).toBe(true);
    // The door's live state is in (its controller is online).
    await expect.poll(() => page.getByText('frei', { exact: true }).first().isVisible()).toBe(true);
    await expectNoEnglish(page, 'home');
    await saveScreenshot(page, 'member-home-de');
  });

  it('books the laser cutter in German, with the day in German words', async () => {
    const { page } = greta;
    const form = page.getByRole('form', { name: 'Neue Buchung' });
    // Tomorrow in the space (bookings open 14 days ahead), and its day as German writes it.
    const day = new Date(Date.now() + 86_400_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
    const label = new Date(`${day}T12:00:00Z`).toLocaleDateString('de-DE', {
      timeZone: 'UTC',
      weekday: 'short',
      day: 'numeric',
      month: 'short',
    });
    await form.getByLabel('Tag').fill(day);
    await form.getByLabel(/^Von/).fill('10:00');
    await form.getByLabel(/^Bis/).fill('11:00');
    await form.getByRole('button', { name: 'Buchen' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toBe(`Lasercutter gebucht, ${label} 10:00–11:00.`);
    await expectNoEnglish(page, 'home after booking');
  });

  it('the machine page: the verdict, Entriegeln, and the door opens', async () => {
    const { page } = greta;
    await page.goto(`${started.web}/r/${ids.door}?c=${doorCode}`);
    await expect.poll(() => page.getByTestId('verdict').textContent()).toBe('Du darfst sie jetzt nutzen.');
    await expectNoEnglish(page, 'machine page');
    await saveScreenshot(page, 'member-machine-page-de');
    await page.getByRole('button', { name: 'Entriegeln' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Entriegelt');
    await expectNoEnglish(page, 'unlocked');
  });

  it('a machine without a controller says why in German, with its price per hour', async () => {
    const { page } = greta;
    await page.goto(`${started.web}/r/${ids.laser}`);
    await expect
      .poll(() => page.getByTestId('verdict').textContent())
      .toBe('Diese Maschine hat noch keine Steuerung.');
    await expect
      .poll(() => page.getByRole('region', { name: 'Preis' }).textContent())
      .toContain('12,00 pro Stunde');
    await page.getByRole('button', { name: 'Problem melden' }).click();
    await page.getByRole('form', { name: 'Problem melden' }).waitFor();
    await expectNoEnglish(page, 'machine without controller');
    await saveScreenshot(page, 'member-machine-report-de');
  });

  it('the account page in German; its language switch saves the member’s language', async () => {
    const { page } = greta;
    await page.goto(`${started.web}/account`);
    await page.getByRole('heading', { name: 'Wo du angemeldet bist' }).waitFor();
    await page.getByRole('checkbox', { name: 'Einer neuen Rechnung' }).waitFor();
    await expectNoEnglish(page, 'account');
    await saveScreenshot(page, 'member-account-de');
    const language = page.getByLabel('Sprache dieser App und deiner E-Mails');
    await language.selectOption('en');
    await page.getByRole('heading', { name: 'Where you are signed in' }).waitFor();
    expect((await started.hub.api('GET', `/members/${ids.greta}`)).body.language).toBe('en');
    await page.getByLabel('Language of this app and of your mails').selectOption('de');
    await page.getByRole('heading', { name: 'Wo du angemeldet bist' }).waitFor();
    expect((await started.hub.api('GET', `/members/${ids.greta}`)).body.language).toBe('de');
    // A new page load keeps it: the record decides, not this page's memory.
    await page.reload();
    await page.getByRole('heading', { name: 'Konto' }).waitFor();
    await expectNoEnglish(page, 'account after reload');
  });

  it('the translated screens of the admin console in German, for an owner whose language is de', async () => {
    const { hub, owner, password: ownerPassword, web } = started;
    const me = (await hub.api('GET', `/members/${owner.id}`)).body;
    expect(
      (await hub.api('PUT', `/members/${owner.id}`, { language: 'de', lockVersion: me.lockVersion })).status,
    ).toBe(200);
    const admin = await germanPhone(browser, 'en-GB');
    await admin.page.setViewportSize({ width: 1280, height: 860 });
    await admin.page.goto(`${web}/sign-in`);
    await admin.page.getByLabel('E-mail address').fill(owner.emailAddress);
    await admin.page.getByLabel('Password').fill(ownerPassword);
    await admin.page.getByRole('button', { name: 'Sign in' }).click();
    await admin.page.getByRole('heading', { name: /^Hallo/ }).waitFor();
    for (const [path, heading] of [
      ['/admin/spaces', 'Spaces'],
      ['/admin/trainings', 'Einweisungen'],
      ['/admin/keys', 'Schlüsselkarten'],
      ['/admin/sign-ups', 'Anmeldungen'],
      ['/admin/bookings', 'Buchungen'],
      ['/admin/activity', 'Aktivität'],
      ['/admin/webhooks', 'Webhooks'],
      ['/admin/mail', 'E-Mail'],
      ['/admin', 'Übersicht'],
      ['/admin/members', 'Mitglieder'],
      ['/admin/packages', 'Pakete'],
      ['/admin/resources', 'Ressourcen und Bridges'],
      ['/admin/billing', 'Abrechnung'],
      ['/admin/reports', 'Berichte'],
      ['/admin/shadow', 'Schattenmodus'],
    ]) {
      await admin.page.goto(`${web}${path}`);
      await admin.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await admin.page.waitForLoadState('networkidle');
      await expectNoEnglish(admin.page, path, 1280);
    }
    // The member import, opened from the members page.
    await admin.page.goto(`${web}/admin/members`);
    await admin.page.getByRole('button', { name: 'Aus einer Tabelle importieren' }).click();
    await admin.page.getByRole('heading', { name: 'Mitglieder aus einer Tabelle importieren' }).waitFor();
    await expectNoEnglish(admin.page, '/admin/members (import)', 1280);
    await admin.page.goto(`${web}/admin/mail`);
    await admin.page.getByRole('heading', { name: 'E-Mail', level: 1 }).waitFor();
    await admin.page.waitForLoadState('networkidle');
    await saveScreenshot(admin.page, 'admin-mail-de');
    await admin.page.goto(`${web}/admin/bookings`);
    await admin.page.getByRole('heading', { name: 'Buchungen', level: 1 }).waitFor();
    await admin.page.waitForLoadState('networkidle');
    await saveScreenshot(admin.page, 'admin-bookings-de');
    await admin.context.close();
  });

  it('the kiosk in German, with its plural', async () => {
    const { page } = greta;
    await page.goto(`${started.web}/kiosk`);
    await page.getByRole('button', { name: 'Einchecken' }).click();
    await expect.poll(() => page.getByText('1 Mitglied ist da').isVisible()).toBe(true);
    await expectNoEnglish(page, 'kiosk');
  });
});
