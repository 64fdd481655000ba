import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, fitsPhone, openConsole, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled, saveScreenshot } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';

describe.runIf(browserTestsEnabled())('importing members from a spreadsheet in Chromium (real hub)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let admin: { context: BrowserContext; page: Page };

  beforeAll(async () => {
    const started = await startConsoleHub('import-teapot-4471');
    hub = started.hub;
    // The space writes dates as German does.
    const space = (await hub.api('GET', `/spaces/${started.owner.space}`)).body;
    expect(
      (
        await hub.api('PUT', `/spaces/${started.owner.space}`, {
          locale: 'de-AT',
          lockVersion: space.lockVersion,
        })
      ).status,
    ).toBe(200);
    ({ browser, admin } = await openConsole(started, '/admin/members'));
  }, 120_000);

  consoleTestHooks('member-import', () => ({ browser, pages: admin?.page }));

  it('shows each column’s field and the wrong rows by line; imports only when told to skip them', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Import from a spreadsheet' }).click();
    const panel = page.getByRole('region', { name: 'Import members from a spreadsheet' });
    // Excel on Windows: Windows-1252 and semicolons.
    const csv = Buffer.from(
      [
        'Vorname;Nachname;E-Mail;Mitgliedsnummer;Geburtsdatum;Schuhgröße',
        'Jürgen;Weiß;juergen@import.example;101;31.12.1980;44',
        'Anna;Öztürk;anna@import.example;102;;38',
        ';Ohne Vorname;ohne@import.example;103;;',
        'Bernd;Datum;bernd@import.example;104;1980-31-12;',
      ].join('\r\n'),
      'latin1',
    );
    await panel
      .getByLabel('CSV file')
      .setInputFiles({ name: 'mitglieder.csv', mimeType: 'text/csv', buffer: csv });
    await expect
      .poll(() => panel.textContent())
      .toContain('4 rows, read as Windows-1252, separated by ";", dates written as 31.12.2025.');
    const columns = panel.getByRole('table', { name: 'Columns' });
    await expect.poll(() => columns.getByRole('row').count()).toBe(7);
    expect(await columns.getByRole('row').nth(1).textContent()).toContain('VornameFirst name');
    expect(await columns.getByRole('row').nth(6).textContent()).toContain('Schuhgrößenot imported');
    const rows = panel.getByRole('table', { name: 'First rows' });
    expect(await rows.getByRole('row').nth(1).textContent()).toContain('Jürgen');
    const wrong = panel.getByRole('list', { name: 'Wrong rows' });
    expect(await wrong.getByRole('listitem').allTextContents()).toEqual([
      'Line 4: Vorname: missing',
      'Line 5: Geburtsdatum: "1980-31-12" is not a date (write it as 31.12.2025)',
    ]);
    const importButton = panel.getByRole('button', { name: 'Import 2 members' });
    expect(await importButton.isDisabled()).toBe(true);
    await fitsPhone(page);
    await saveScreenshot(page, 'admin-member-import');

    await panel.getByLabel('Skip the wrong rows and import the others').check();
    await importButton.click();
    await expect
      .poll(() => panel.getByRole('status').textContent())
      .toBe('Imported 2 members; 2 wrong rows skipped.');
    const members = (await hub.api('GET', '/members?q=import.example')).body as {
      firstName: string;
      dateOfBirth: string;
    }[];
    expect(members.map((m) => m.firstName).sort()).toEqual(['Anna', 'Jürgen']);
    expect(members.find((m) => m.firstName === 'Jürgen')?.dateOfBirth).toBe('1980-12-31');
    // The list shows them.
    await expect
      .poll(() => page.getByRole('table', { name: 'Members' }).textContent())
      .toContain('Jürgen Weiß');
  }, 60_000);
});
