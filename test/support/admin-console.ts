import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, expect } from 'vitest';
import { desktop, freePort, launchChromium, signInWithPassword } from './browser.js';
import { type HubProcess, startHubProcess } from './e2e.js';
import { stopAll } from './processes.js';

/** A hub process serving the web app, and its owner who signs in with a password. */
export interface ConsoleHub {
  hub: HubProcess;
  /** The web app's address, which is also the hub's public URL. */
  web: string;
  /** The owner, as GET /user/me answers. */
  owner: {
    id: number;
    emailAddress: string;
    firstName: string;
    lastName: string | null;
    space: number;
    privileges: string[];
  };
  /** The owner's password. */
  password: string;
}

/**
 * Starts `makerspace-hub serve` on a free port known beforehand (its public URL is the web app's
 * address) and gives the owner `password`.
 */
export async function startConsoleHub(password: string, env: NodeJS.ProcessEnv = {}): Promise<ConsoleHub> {
  const httpPort = await freePort();
  const web = `http://127.0.0.1:${httpPort}`;
  const hub = await startHubProcess({ httpPort, env: { HUB_PUBLIC_URL: web, ...env } });
  const owner = (await hub.api('GET', '/user/me')).body;
  expect((await hub.api('PUT', '/user/password', { password })).status).toBe(204);
  return { hub, web, owner, password };
}

/** Sets the time zone of the space (the times the pages show and the reports' days are its). */
export async function setSpaceTimeZone(hub: HubProcess, space: number, timezone: string): Promise<void> {
  const { lockVersion } = (await hub.api('GET', `/spaces/${space}`)).body;
  expect((await hub.api('PUT', `/spaces/${space}`, { timezone, lockVersion })).status).toBe(200);
}

/**
 * Opens a desktop page on which the owner signs in with the password and lands on `next`.
 * `timeout` is the page's default for each step (a missing element fails early).
 */
export async function ownerDesktop(
  browser: Browser,
  { web, owner, password }: ConsoleHub,
  next: string,
  timeout?: number,
): Promise<{ context: BrowserContext; page: Page }> {
  const admin = await desktop(browser);
  if (timeout) admin.page.setDefaultTimeout(timeout);
  await signInWithPassword(admin.page, web, owner.emailAddress, password, next);
  return admin;
}

/** Launches Chromium and opens the owner's desktop page on `next` (see ownerDesktop). */
export async function openConsole(
  started: ConsoleHub,
  next: string,
  timeout?: number,
): Promise<{ browser: Browser; admin: { context: BrowserContext; page: Page } }> {
  const browser = await launchChromium();
  return { browser, admin: await ownerDesktop(browser, started, next, timeout) };
}

type Pages = Page | undefined | Record<string, Page | undefined>;

/**
 * The hooks of a console test: after a failed test, a screenshot of each page in the temp dir
 * (screenshotsOnFailure); after all, the browser closed and every process stopped. `state` is
 * read when they run.
 */
export function consoleTestHooks(
  name: string,
  state: () => { browser: Browser | undefined; pages: Pages },
): void {
  afterEach(({ task }) => screenshotsOnFailure(task, name, state().pages));
  afterAll(() => closeBrowserAndProcesses(state().browser), 60_000);
}

/**
 * When `task` failed, saves a full-page screenshot of each page into the temp dir, named
 * `<name>-failed-<who>-<test>.png` (without `<who>` for a single page).
 */
export async function screenshotsOnFailure(
  task: { name: string; result?: { state?: string } },
  name: string,
  pages: Pages,
): Promise<void> {
  if (task.result?.state !== 'fail') return;
  const test = task.name.slice(0, 40).replace(/\W+/g, '-');
  const named = pages === undefined || 'screenshot' in pages ? { '': pages as Page | undefined } : pages;
  for (const [who, page] of Object.entries(named)) {
    await page?.screenshot({
      path: join(tmpdir(), `${name}-failed-${who ? `${who}-` : ''}${test}.png`),
      fullPage: true,
    });
  }
}

/** Closes the browser and stops every process the test started. */
export async function closeBrowserAndProcesses(browser: Browser | undefined): Promise<void> {
  await browser?.close();
  await stopAll();
}

/** The page fits a 360 px phone: no sideways scrolling of the document. Back to the desktop size after. */
export async function fitsPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 360, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** RFC 4180 rows (quoted cells with doubled quotes, CRLF), as a spreadsheet reads the export. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}
