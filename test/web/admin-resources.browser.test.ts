import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQR from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleTestHooks, openConsole, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled, desktop, signInWithPassword } from '../support/browser.js';
import { type HubProcess, startOnlineDoorAgent } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { agentCli, type Proc, runProcess, startProcess, tempDir } from '../support/processes.js';

/** The text of the QR code in a PNG (a screenshot of the page's QR code, or a sticker). */
function readQr(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

describe.runIf(browserTestsEnabled())('admin resources page in Chromium (real hub and agents)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let web: string;
  let owner: { id: number; emailAddress: string; space: number };
  let admin: { context: BrowserContext; page: Page };
  const password = 'lathe-walnut-4417';
  const laser = { id: 0, dir: '', agent: null as Proc | null };
  let frontDoor = 0;

  const row = (page: Page, name: string) =>
    page.getByRole('table', { name: 'Doors and machines' }).getByRole('row', { name, exact: true });
  const status = (page: Page) => page.getByRole('status').filter({ hasNotText: 'Loading' });

  /** Runs the pairing command shown on the page as a Pi would, then the agent it configured. */
  async function pairWithShownCommand(page: Page, name: string): Promise<{ command: string; agent: Proc }> {
    await page.getByRole('button', { name: `Pair a bridge for ${name}` }).click();
    const command = await page.getByLabel('Pairing command').inputValue();
    const match = command.match(/^makerspace-agent pair (\S+) ([A-Z0-9-]+)$/);
    expect(match?.[1]).toBe(web);
    const paired = await runProcess(
      [agentCli, 'pair', match![1], match![2], '--dir', laser.dir, '--data-dir', join(laser.dir, 'data')],
      {},
    );
    expect(paired.stderr).toBe('');
    expect(paired.code).toBe(0);
    const configFile = join(laser.dir, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    writeFileSync(configFile, JSON.stringify({ ...config, keepaliveSeconds: 2 }));
    const agent = startProcess([agentCli, 'run', '--config', configFile], {});
    await agent.waitFor(/connected to the hub/);
    return { command, agent };
  }
  const relay = () => JSON.parse(readFileSync(join(laser.dir, 'data', 'relay.json'), 'utf8')).relay;

  beforeAll(async () => {
    const started = await startConsoleHub(password);
    ({ hub, web, owner } = started);
    const door = (
      await hub.api('POST', '/resources', { space: owner.space, name: 'Front door', controlType: 'door' })
    ).body;
    frontDoor = door.id;
    await hub.api('PUT', `/resources/${door.id}/bridge`, {});
    const key = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    await startOnlineDoorAgent(hub, door.id, key);
    await hub.api('POST', '/resource-types', { name: 'Old printers' });
    await hub.api('POST', '/resource-types', { name: 'Lasers' });
    laser.dir = tempDir('laser-pi-');
    // A missing element fails its step with a clear message before the test's own time runs out.
    ({ browser, admin } = await openConsole(started, '/admin/resources', 15_000));
  }, 120_000);

  consoleTestHooks('admin-resources', () => ({ browser, pages: admin?.page }));

  it('lists the resources with their bridge state; resource types are added, renamed and deleted', async () => {
    const { page } = admin;
    await expect
      .poll(() => page.getByRole('heading', { name: 'Resources and bridges', level: 1 }).isVisible())
      .toBe(true);
    await expect.poll(() => row(page, 'Front door').getByTestId('bridge-state').textContent()).toBe('Online');
    expect(await row(page, 'Front door').textContent()).toContain('door');
    const types = page.getByRole('list', { name: 'Resource types' });

    await page.getByLabel('New resource type').fill('Wood shop');
    await page.getByRole('button', { name: 'Add type' }).click();
    await expect.poll(() => page.getByLabel('Name of the type Wood shop').count()).toBe(1);

    await page.getByLabel('Name of the type Lasers').fill('Laser cutters');
    await page.getByRole('button', { name: 'Rename the type Lasers' }).click();
    await expect.poll(() => page.getByLabel('Name of the type Laser cutters').count()).toBe(1);

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete the type Old printers' }).click();
    await expect.poll(() => types.getByRole('textbox').count()).toBe(2);
    const stored = (await hub.api('GET', '/resource-types')).body.map((t: { name: string }) => t.name);
    expect(stored.sort()).toEqual(['Laser cutters', 'Wood shop']);
  }, 60_000);

  it('creates a resource and edits it; a bad value is refused with the field named and changes nothing', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'New resource' }).click();
    const create = page.getByRole('form', { name: 'New resource' });
    await create.getByLabel('Name', { exact: true }).fill('Laser cutter');
    await create.getByLabel(/^Type/).selectOption({ label: 'Laser cutters' });
    await create.getByLabel('Control type').selectOption('machine');
    await create.getByLabel('Requires a training').check();
    await create.getByRole('button', { name: 'Create resource' }).click();
    const edit = page.getByRole('form', { name: 'Edit Laser cutter' });
    await expect.poll(() => edit.isVisible()).toBe(true);
    // Name, type, control type, state, bridge.
    await expect
      .poll(() => row(page, 'Laser cutter').textContent())
      .toBe('Laser cutterLaser cuttersmachineactiveNo bridge');
    const all = (await hub.api('GET', '/resources?q=laser')).body;
    expect(all).toHaveLength(1);
    laser.id = all[0].id;
    const types = (await hub.api('GET', '/resource-types?q=laser')).body;
    expect(all[0]).toMatchObject({
      name: 'Laser cutter',
      type: types[0].id,
      controlType: 'machine',
      state: 'active',
      requiresTraining: true,
      space: owner.space,
    });

    // 0 seconds is refused by the hub, which names the field; nothing is stored.
    await edit.getByLabel('Pulse seconds (how long a door stays open)').fill('0');
    await edit.getByLabel('Safety message').fill('Goggles on');
    await edit.getByRole('button', { name: 'Save Laser cutter' }).click();
    await expect.poll(() => edit.getByRole('alert').textContent()).toBe('Pulse seconds: at least 1.');
    const unchanged = (await hub.api('GET', `/resources/${laser.id}`)).body;
    expect(unchanged).toMatchObject({ safetyMessage: null, lockVersion: all[0].lockVersion });

    await edit.getByLabel('Pulse seconds (how long a door stays open)').fill('4');
    await edit.getByLabel('State').selectOption('locked');
    await edit.getByRole('button', { name: 'Save Laser cutter' }).click();
    await expect.poll(() => row(page, 'Laser cutter').textContent()).toContain('locked');
    expect(await edit.getByRole('alert').count()).toBe(0);
    expect((await hub.api('GET', `/resources/${laser.id}`)).body).toMatchObject({
      state: 'locked',
      safetyMessage: 'Goggles on',
      pulseSeconds: 4,
    });
    await edit.getByLabel('State').selectOption('active');
    await edit.getByRole('button', { name: 'Save Laser cutter' }).click();
    await expect.poll(() => row(page, 'Laser cutter').textContent()).toContain('active');
  }, 60_000);

  it('pairs a bridge with the shown command (its QR code carries the same line) and sees it come online', async () => {
    const { page } = admin;
    const { command, agent } = await pairWithShownCommand(page, 'Laser cutter');
    laser.agent = agent;
    // The QR code for a phone holds exactly the command on the page.
    const qr = page.getByRole('img', { name: 'QR code of the line, for a phone' });
    expect(readQr(await qr.screenshot())).toBe(command);
    await expect
      .poll(() => row(page, 'Laser cutter').getByTestId('bridge-state').textContent(), { timeout: 20_000 })
      .toBe('Online');
    await row(page, 'Laser cutter').getByRole('button', { name: 'Laser cutter' }).click();
    await expect.poll(() => page.getByTestId('details-bridge-state').textContent()).toBe('Online');
    await page.getByRole('button', { name: 'Close' }).click();
  }, 60_000);

  it('switches the machine on and off remotely, logged as the admin', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Switch on Laser cutter' }).click();
    await eventually(() => relay() === 'on', 5_000, 'laser relay on');
    await expect.poll(() => status(page).textContent()).toBe('Switched on Laser cutter');
    await page.getByRole('button', { name: 'Switch off Laser cutter' }).click();
    await eventually(() => relay() === 'off', 5_000, 'laser relay off');
    await expect.poll(() => status(page).textContent()).toBe('Switched off Laser cutter');
    const logs = (await hub.api('GET', `/resource-logs?resource=${laser.id}&type=allowed`)).body;
    expect(logs).toHaveLength(1);
    expect(logs[0].member).toBe(owner.id);
    expect(logs[0].stoppedAt).not.toBeNull();
  }, 60_000);

  it('rotating the key cuts the agent off at once and refuses its old key; pairing again brings it back', async () => {
    const { page } = admin;
    const before = laser.agent!.output().length;
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Rotate key of Laser cutter' }).click();
    await expect.poll(() => status(page).textContent()).toBe('New key for Laser cutter: pair its Pi again');
    await expect
      .poll(() => page.getByTestId('details-bridge-state').textContent(), { timeout: 20_000 })
      .toBe('Offline');
    // The agent tries again with the old key, and the hub refuses it.
    await eventually(
      () => /refused the bridge API key/.test(laser.agent!.output().slice(before)),
      20_000,
      'the old key refused',
    );
    expect((await hub.api('GET', `/resources/${laser.id}/bridge`)).body.offline).toBe(true);
    await laser.agent!.stop();
    laser.agent = (await pairWithShownCommand(page, 'Laser cutter')).agent;
    await expect
      .poll(() => page.getByTestId('details-bridge-state').textContent(), { timeout: 20_000 })
      .toBe('Online');
    await page.getByRole('button', { name: 'Close' }).click();
  }, 60_000);

  it('a new switch-on code is shown, the old sticker says "out of date", stickers print with the new code', async () => {
    const { page } = admin;
    const old = (await page.getByTestId('switch-on-code').textContent())!;
    expect(old).toBe((await hub.api('GET', `/resources/${laser.id}`)).body.switchOnCode);
    const form = page.getByRole('form', { name: 'Switch-on code of Laser cutter' });

    // Too short: refused with the reason, the code stays.
    await form.getByLabel('New code (empty: a random one)').fill('abc');
    await form.getByRole('button', { name: 'Change the code of Laser cutter' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('at least 6 characters');
    expect((await hub.api('GET', `/resources/${laser.id}`)).body.switchOnCode).toBe(old);

    await form.getByLabel('New code (empty: a random one)').fill('');
    await form.getByRole('button', { name: 'Change the code of Laser cutter' }).click();
    await expect.poll(() => page.getByTestId('switch-on-code').textContent()).not.toBe(old);
    const fresh = (await page.getByTestId('switch-on-code').textContent())!;
    expect((await hub.api('GET', `/resources/${laser.id}`)).body.switchOnCode).toBe(fresh);
    expect(await status(page).textContent()).toContain(`New switch-on code of Laser cutter: ${fresh}.`);

    // The printed sticker's URL with the old code now answers "out of date".
    const phone = await admin.context.newPage();
    await phone.goto(`${web}/r/${laser.id}?c=${encodeURIComponent(old)}`);
    await expect
      .poll(() => phone.getByText('This sticker is out of date').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await phone.close();

    // Remote switch-on uses the new code.
    await page.getByRole('button', { name: 'Switch on Laser cutter' }).click();
    await eventually(() => relay() === 'on', 5_000, 'laser relay on with the new code');
    await page.getByRole('button', { name: 'Switch off Laser cutter' }).click();
    await eventually(() => relay() === 'off', 5_000, 'laser relay off');

    // Stickers of the chosen resources; the laser's carries the new code.
    await row(page, 'Laser cutter').getByRole('checkbox', { name: 'Sticker of Laser cutter' }).check();
    await row(page, 'Front door').getByRole('checkbox', { name: 'Sticker of Front door' }).check();
    const print = page.getByRole('link', { name: 'Print stickers of 2 chosen' });
    expect(await print.getAttribute('href')).toBe(`/stickers?ids=${laser.id},${frontDoor}`);
    await print.click();
    await expect.poll(() => page.getByRole('img', { name: /^QR sticker of / }).count()).toBe(2);
    const sticker = await fetch(`${hub.base}/resources/${laser.id}/sticker?format=png`, {
      headers: { authorization: `Bearer ${hub.token}` },
    });
    expect(readQr(Buffer.from(await sticker.arrayBuffer()))).toBe(`${web}/r/${laser.id}?c=${fresh}`);
  }, 60_000);

  it('a plain member who opens the page gets the admins-only page; the API refuses them too', async () => {
    const m = (await hub.api('POST', '/members', { firstName: 'Bo', emailAddress: 'bo@resources.example' }))
      .body;
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    const token = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await hub.api('PUT', '/user/password', { password: 'router-birch-5521' }, token)).status).toBe(
      204,
    );
    const bo = await desktop(browser);
    await signInWithPassword(bo.page, web, 'bo@resources.example', 'router-birch-5521', '/admin/resources');
    await expect.poll(() => bo.page.getByRole('heading', { name: 'For admins only' }).count()).toBe(1);
    expect(await bo.page.getByRole('button', { name: 'New resource' }).count()).toBe(0);
    const status = await bo.page.evaluate(
      async (space) => {
        const csrf = (await (await fetch('/api/v1/user/sessions/current')).json()).csrfToken;
        const res = await fetch('/api/v1/resources', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ space, name: 'Sneaky saw' }),
        });
        return res.status;
      },
      (await hub.api('GET', '/user/me')).body.space,
    );
    expect(status).toBe(403);
    expect((await hub.api('GET', '/resources?q=sneaky')).body).toEqual([]);
    await bo.context.close();
  }, 60_000);
});
