import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from './processes.js';

/** Debian's Chromium (apt-get install chromium); Playwright cannot download browsers here. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);

/**
 * Browser tests run where Chromium is installed. Elsewhere they are skipped with one loud line,
 * unless REQUIRE_BROWSER=1 (CI sets it), which turns the skip into a failure.
 */
export function browserTestsEnabled(): boolean {
  if (hasChromium) return true;
  if (process.env.REQUIRE_BROWSER === '1') {
    throw new Error(`REQUIRE_BROWSER=1 but no Chromium at ${chromiumPath}: apt-get install chromium`);
  }
  console.warn(
    `\n*** Browser tests SKIPPED: no Chromium at ${chromiumPath}. Install it: apt-get install chromium ***\n`,
  );
  return false;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // No sandbox as root; and no background traffic to anything but the hub on loopback.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
    ],
  });
}

/** A phone-sized page (360 x 740), as a member holds it at a machine. */
export async function phone(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    // What Chrome on an Android phone sends (Chromium headless would name itself a Linux desktop).
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  return { context, page: await context.newPage() };
}

/** A free TCP port on loopback (for a hub whose public URL must be known before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A desktop-sized page (1280 x 860), as an admin at the front desk sees the console. */
export async function desktop(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  return { context, page: await context.newPage() };
}

/** Signs in with e-mail and password on the hub at `web` and waits to land on `next`. */
export async function signInWithPassword(
  page: Page,
  web: string,
  email: string,
  password: string,
  next: string,
): Promise<void> {
  await page.goto(`${web}${next}`);
  await choosePassword(page);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.href === `${web}${next}`, { timeout: 10_000 });
}

/**
 * On the sign-in page, shows the password field: a hub with mail offers links first (the
 * "Use a password instead" button), a hub without mail shows the password at once.
 */
export async function choosePassword(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Use a password instead' });
  await toggle.or(page.getByLabel('Password')).first().waitFor({ timeout: 10_000 });
  if (await toggle.isVisible()) await toggle.click();
}

/** Saves a full-page screenshot as docs/screenshots/<name>.png (shown in the README and docs). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const dir = join(repoRoot, 'docs/screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/**
 * The console shows who gains and loses access before a form saves a change to it: this saves
 * through that preview when one shows within a few seconds (a change that alters nobody's
 * access saves without one). `scope` is the page or the form.
 */
export async function saveThroughAccessPreview(
  scope: Pick<Page, 'getByRole'>,
  button: 'Save anyway' | 'Delete anyway' = 'Save anyway',
): Promise<void> {
  const anyway = scope.getByRole('button', { name: button });
  const shown = await anyway.waitFor({ state: 'visible', timeout: 5000 }).then(
    () => true,
    () => false,
  );
  if (shown) await anyway.click();
}
