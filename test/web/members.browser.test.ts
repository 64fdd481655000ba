import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, freePort, launchChromium, phone } from '../support/browser.js';
import {
  type AgentProcess,
  type HubProcess,
  startAgentProcess,
  startHubProcess,
  startOnlineDoorAgent,
} from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { repoRoot, stopAll } from '../support/processes.js';

const shots = join(repoRoot, 'docs/screenshots');

/** Mail the hub sends, caught by an SMTP server of the test's own on loopback. */
function mailCatcher() {
  const mails: { to: string; text: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c) => {
        raw += c.toString();
      });
      stream.on('end', () => {
        // Quoted-printable soft breaks and escapes, as nodemailer writes long lines.
        const text = raw
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text });
        done();
      });
    },
  });
  return { server, mails };
}

const linkIn = (text: string) => text.match(/https?:\/\/[^\s"<>]+\/sign-in\/link#token=[^\s"<>]+/)?.[0];

describe.runIf(browserTestsEnabled())('members web app in Chromium (real hub and agents)', () => {
  let browser: Browser;
  let hub: HubProcess;
  let door: AgentProcess;
  let laserAgent: AgentProcess;
  let smtp: ReturnType<typeof mailCatcher>;
  let evil: Server;
  let evilPort: number;
  let web: string;
  const ids = { door: 0, laser: 0, ada: 0, space: 0, pkg: 0, adaPackage: 0 };
  const codes = { door: '', laser: '' };
  const password = 'lathe-tuesday-4417-swarf';
  let ada: { context: BrowserContext; page: Page };

  async function mailTo(address: string, since: number) {
    return eventually(
      () => smtp.mails.slice(since).find((m) => m.to === address),
      10_000,
      `mail to ${address}`,
    );
  }
  async function shot(page: Page, name: string) {
    // Every page shot fits its screen: nothing to scroll sideways (a mobile browser would zoom
    // out to fit a wider page, so against the screen's width, not innerWidth).
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(`${name}: ${wide} px`).toBe(`${name}: ${Math.min(wide, page.viewportSize()?.width ?? wide)} px`);
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  }
  async function signInWithPassword(page: Page) {
    await page.getByRole('button', { name: 'Use a password instead' }).click();
    await page.getByLabel('E-mail address').fill('ada@members.example');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    smtp = mailCatcher();
    const smtpPort = await new Promise<number>((resolve) =>
      smtp.server.listen(0, '127.0.0.1', () => resolve((smtp.server.server.address() as any).port)),
    );
    const httpPort = await freePort();
    web = `http://127.0.0.1:${httpPort}`;
    hub = await startHubProcess({
      httpPort,
      env: {
        HUB_PUBLIC_URL: web,
        HUB_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        HUB_MAIL_FROM: 'hub@space.example',
      },
    });
    ids.space = (await hub.api('GET', '/user/me')).body.space;
    const resource = async (body: Record<string, unknown>) => {
      const r = (await hub.api('POST', '/resources', { space: ids.space, ...body })).body;
      await hub.api('PUT', `/resources/${r.id}/bridge`, {});
      return {
        id: r.id as number,
        code: r.switchOnCode as string,
        key: (await hub.api('GET', `/resources/${r.id}/bridge/api-key`)).body.apiKey as string,
      };
    };
    const d = await resource({ name: 'Front door', controlType: 'door', pulseSeconds: 2 });
    const l = await resource({ name: 'Laser cutter', controlType: 'machine' });
    ids.door = d.id;
    ids.laser = l.id;
    codes.door = d.code;
    codes.laser = l.code;
    door = await startOnlineDoorAgent(hub, d.id, d.key);
    laserAgent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: l.id,
      apiKey: l.key,
      controlType: 'machine',
    });
    const m = (
      await hub.api('POST', '/members', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@members.example',
      })
    ).body;
    ids.ada = m.id;
    ids.pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body.id;
    await hub.api('POST', `/packages/${ids.pkg}/permissions`, { type: 'everything' });
    ids.adaPackage = (await hub.api('POST', `/members/${ids.ada}/packages`, { package: ids.pkg })).body.id;
    await hub.api('PUT', `/members/${ids.ada}/key`, { type: 'em4102', token: '0A1B2C3D4E' });
    // A page of another origin (another port: same site, other origin) for the cross-site post.
    evilPort = await freePort();
    evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${web}/api/v1/members/${ids.ada}/key/lost"><input name="x" value="1"></form><script>document.getElementById('f').submit()</script>`,
      );
    }).listen(evilPort, '127.0.0.1');
    browser = await launchChromium();
    ada = await phone(browser);
  }, 90_000);

  // A failed step leaves a picture of what the member saw.
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && ada) {
      await ada.page.screenshot({
        path: join(tmpdir(), `web-test-failed-${task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
      });
    }
  });

  afterAll(async () => {
    await browser?.close();
    evil?.close();
    await new Promise<void>((resolve) => (smtp ? smtp.server.close(() => resolve()) : resolve()));
    await stopAll();
  });

  it('invitation mail -> set up a password -> signed in on the home page', async () => {
    const before = smtp.mails.length;
    const invite = await hub.api('POST', `/members/${ids.ada}/invitation`);
    expect(invite.status).toBe(200);
    const link = linkIn((await mailTo('ada@members.example', before)).text);
    expect(link).toMatch(new RegExp(`^${web}/sign-in/link#token=`));
    const { page } = ada;
    await page.goto(link!);
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome, Ada' }).isVisible()).toBe(true);
    await shot(page, 'member-set-password');
    await page.getByLabel('New password').fill(password);
    await page.getByRole('button', { name: 'Save password' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Hello, Ada' }).isVisible()).toBe(true);
    // The link worked once: opened again it says so.
    const again = await browser.newPage();
    await again.goto(link!);
    await expect.poll(() => again.getByRole('alert').textContent()).toContain('already used');
    await again.close();
  });

  it('a sticker opened signed out goes through sign-in and back to the machine page with its code', async () => {
    const fresh = await phone(browser);
    const page = fresh.page;
    await page.goto(`${web}/r/${ids.door}?c=${codes.door}`);
    await expect.poll(() => page.url()).toContain('/sign-in?next=');
    await shot(page, 'member-sign-in');
    await signInWithPassword(page);
    await expect.poll(() => page.url()).toBe(`${web}/r/${ids.door}?c=${codes.door}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Front door' }).isVisible()).toBe(true);
    await fresh.context.close();
  });

  it('Unlock: the verdict first, then the agent’s relay switches, the page says so and the log exists', async () => {
    const { page } = ada;
    await page.goto(`${web}/r/${ids.door}?c=${codes.door}`);
    await expect.poll(() => page.getByTestId('verdict').textContent()).toBe('You may use it now.');
    await shot(page, 'member-machine-page');
    const unlock = page.getByRole('button', { name: 'Unlock' });
    await expect.poll(() => unlock.isEnabled()).toBe(true);
    await unlock.click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Unlocked' }).isVisible()).toBe(true);
    await eventually(() => door.relay() === 'on', 5_000, 'door relay on');
    await shot(page, 'member-unlocked');
    const logs = (await hub.api('GET', `/resource-logs?resource=${ids.door}&member=${ids.ada}&type=allowed`))
      .body;
    expect(logs.length).toBeGreaterThan(0);
    await eventually(() => door.relay() === 'off', 8_000, 'door closed again after its pulse');
  });

  it('Switch on a machine: a running session with its time, then Switch off', async () => {
    const { page } = ada;
    await page.goto(`${web}/r/${ids.laser}?c=${codes.laser}`);
    await page.getByRole('button', { name: 'Switch on' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Switch off' }).isVisible(), { timeout: 10_000 })
      .toBe(true);
    await eventually(() => laserAgent.relay() === 'on', 5_000, 'laser relay on');
    await expect.poll(() => page.getByText(/In use by you since/).isVisible()).toBe(true);
    await shot(page, 'member-session');
    await page.getByRole('button', { name: 'Switch off' }).click();
    await eventually(() => laserAgent.relay() === 'off', 5_000, 'laser relay off');
    await expect
      .poll(() => page.getByRole('button', { name: 'Switch on' }).isVisible(), { timeout: 10_000 })
      .toBe(true);
    const running = (await hub.api('GET', `/resource-logs?resource=${ids.laser}&status=active`)).body;
    expect(running.length).toBe(0);
  });

  it('shows why not, for each reason, before anything is pressed', async () => {
    const { page } = ada;
    const verdictFor = async (id: number, code: string) => {
      await page.goto(`${web}/r/${id}?c=${code}`);
      await expect.poll(() => page.getByTestId('verdict').textContent()).not.toBe(null);
      return page.getByTestId('verdict');
    };
    const expectVerdict = async (id: number, code: string, text: RegExp, shotName?: string) => {
      const v = await verdictFor(id, code);
      await expect.poll(() => v.textContent(), { timeout: 5_000 }).toMatch(text);
      expect(await page.getByRole('button', { name: /Unlock|Switch on/ }).isDisabled()).toBe(true);
      if (shotName) await shot(page, shotName);
    };

    // No package.
    await hub.api('DELETE', `/members/${ids.ada}/packages/${ids.adaPackage}`);
    await expectVerdict(
      ids.door,
      codes.door,
      /None of your packages allows this door/,
      'member-denied-no-package',
    );
    ids.adaPackage = (await hub.api('POST', `/members/${ids.ada}/packages`, { package: ids.pkg })).body.id;

    // Training missing.
    const laser = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    await hub.api('PUT', `/resources/${ids.laser}`, {
      lockVersion: laser.lockVersion,
      requiresTraining: true,
    });
    await hub.api('POST', '/training-courses', { title: 'Laser basics', resources: [ids.laser] });
    await expectVerdict(ids.laser, codes.laser, /Training “Laser basics” missing/);
    const trained = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    await hub.api('PUT', `/resources/${ids.laser}`, {
      lockVersion: trained.lockVersion,
      requiresTraining: false,
    });

    // Booked by someone else now.
    const ben = (await hub.api('POST', '/members', { firstName: 'Ben', emailAddress: 'ben@members.example' }))
      .body;
    const laserNow = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    await hub.api('PUT', `/resources/${ids.laser}`, { lockVersion: laserNow.lockVersion, canBeBooked: true });
    // On whole hours, whatever the space's booking slots; an admin may book from the past hour.
    const from = new Date(Math.floor(Date.now() / 3600_000) * 3600_000);
    const booking = await hub.api('POST', '/bookings', {
      resource: ids.laser,
      member: ben.id,
      fromDateTime: from.toISOString(),
      untilDateTime: new Date(from.getTime() + 2 * 3600_000).toISOString(),
    });
    expect(booking.status, JSON.stringify(booking.body)).toBe(201);
    await expectVerdict(
      ids.laser,
      codes.laser,
      /Booked by another member until (\w{3} \d+ \w{3} )?\d\d:\d\d/,
    );
    await hub.api('PUT', `/bookings/${booking.body.id}`, {
      state: 'cancelled',
      lockVersion: booking.body.lockVersion,
    });

    // A holiday now.
    const holiday = await hub.api('POST', `/spaces/${ids.space}/holidays`, {
      title: 'Closed',
      fromDateTime: new Date(Date.now() - 3600_000).toISOString().slice(0, 16),
      untilDateTime: new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 16),
    });
    expect(holiday.status).toBe(201);
    await expectVerdict(ids.door, codes.door, /closed for a holiday until/);
    await hub.api('DELETE', `/spaces/${ids.space}/holidays/${holiday.body.id}`);

    // Outside opening hours: open only on another weekday.
    const today = ((new Date().getUTCDay() + 6) % 7) + 1;
    const other = (today % 7) + 1;
    await hub.api('PUT', `/spaces/${ids.space}/opening-hours`, [
      { dayOfWeek: other, fromTime: '09:00', untilTime: '18:00' },
    ]);
    await expectVerdict(
      ids.door,
      codes.door,
      /The space is closed until \w{3} \d+ \w{3} 09:00/,
      'member-denied-closed',
    );
    await hub.api('PUT', `/spaces/${ids.space}/opening-hours`, []);

    // A locked resource.
    const doorNow = (await hub.api('GET', `/resources/${ids.door}`)).body;
    await hub.api('PUT', `/resources/${ids.door}`, { lockVersion: doorNow.lockVersion, state: 'locked' });
    await expectVerdict(ids.door, codes.door, /This door is locked/);
    const locked = (await hub.api('GET', `/resources/${ids.door}`)).body;
    await hub.api('PUT', `/resources/${ids.door}`, { lockVersion: locked.lockVersion, state: 'active' });

    // A machine that must be booked, without a booking of hers.
    const mustBook = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    await hub.api('PUT', `/resources/${ids.laser}`, {
      lockVersion: mustBook.lockVersion,
      mustBeBooked: true,
    });
    await expectVerdict(ids.laser, codes.laser, /must be booked: you have no booking now/);
    const booked = (await hub.api('GET', `/resources/${ids.laser}`)).body;
    await hub.api('PUT', `/resources/${ids.laser}`, { lockVersion: booked.lockVersion, mustBeBooked: false });

    // A package whose time table does not cover now (only another weekday).
    await hub.api('DELETE', `/members/${ids.ada}/packages/${ids.adaPackage}`);
    const evenings = (await hub.api('POST', '/packages', { name: 'Another day' })).body;
    const weekday = ((new Date().getUTCDay() + 6) % 7) + 1;
    await hub.api('POST', `/packages/${evenings.id}/permissions`, {
      type: 'everything',
      timeType: 'custom',
      times: [{ dayOfWeek: (weekday % 7) + 1, fromTime: '00:00', untilTime: '23:59' }],
    });
    const limited = (await hub.api('POST', `/members/${ids.ada}/packages`, { package: evenings.id })).body;
    await expectVerdict(ids.door, codes.door, /Your package does not allow this door at this time/);
    await hub.api('DELETE', `/members/${ids.ada}/packages/${limited.id}`);
    ids.adaPackage = (await hub.api('POST', `/members/${ids.ada}/packages`, { package: ids.pkg })).body.id;

    // The bridge offline.
    await door.proc.stop();
    await expectVerdict(ids.door, codes.door, /The door is offline/);
    door = await startOnlineDoorAgent(
      hub,
      ids.door,
      (await hub.api('GET', `/resources/${ids.door}/bridge/api-key`)).body.apiKey,
      door.dir,
    );
    await expect
      .poll(() => page.getByTestId('verdict').textContent(), { timeout: 10_000 })
      .toBe('You may use it now.');

    // A DIY bridge on the HTTP bridge API: online by its heartbeats, but no command reaches it.
    const gate = (
      await hub.api('POST', '/resources', { space: ids.space, name: 'Garden gate', controlType: 'door' })
    ).body;
    await hub.api('PUT', `/resources/${gate.id}/bridge`, {});
    const gateKey = (await hub.api('GET', `/resources/${gate.id}/bridge/api-key`)).body.apiKey;
    const beat = await fetch(`${hub.base}/bridge/heartbeat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configVersion: 0 }),
    });
    expect(beat.status).toBe(200);
    await expectVerdict(gate.id, gate.switchOnCode, /used at its reader with your key card/);
  });

  it('an old sticker says it is out of date', async () => {
    const r = (await hub.api('GET', `/resources/${ids.door}`)).body;
    const changed = await hub.api('PUT', `/resources/${ids.door}`, {
      lockVersion: r.lockVersion,
      switchOnCode: null,
    });
    expect(changed.status).toBe(200);
    const { page } = ada;
    await page.goto(`${web}/r/${ids.door}?c=${codes.door}`);
    await expect.poll(() => page.getByTestId('verdict').textContent()).toMatch(/This sticker is out of date/);
    await shot(page, 'member-stale-sticker');
    codes.door = changed.body.switchOnCode;
  });

  it('wrong typed codes lock the member out, and the page counts down the real time left', async () => {
    const { page } = ada;
    await page.goto(`${web}/r/${ids.laser}`);
    const code = page.getByLabel('Code on the machine');
    for (let i = 0; i < 5; i++) {
      await code.fill(`WRONG${i}XY`);
      await page.getByRole('button', { name: 'Switch on' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Wrong code/);
    }
    // The fifth wrong code locks: the verdict counts down the time left and the button is off.
    await expect
      .poll(() => page.getByTestId('verdict').textContent())
      .toMatch(/Too many wrong codes. Try again in (9|10) min/);
    await code.fill(codes.laser);
    expect(await page.getByRole('button', { name: 'Switch on' }).isDisabled()).toBe(true);
    const first = await page.getByTestId('verdict').textContent();
    await expect.poll(() => page.getByTestId('verdict').textContent(), { timeout: 4_000 }).not.toBe(first);
    await shot(page, 'member-locked-out');
    expect(laserAgent.relay()).toBe('off');
  });

  it('a form posted from another site is refused and changes nothing', async () => {
    const { page } = ada;
    const answer = page.waitForResponse((res) => res.url().endsWith('/key/lost'));
    await page.goto(`http://127.0.0.1:${evilPort}/`);
    expect((await answer).status()).toBe(403);
    expect((await hub.api('GET', `/members/${ids.ada}/key`)).body.state).toBe('active');
  });

  it('home shows my machines live; a lost card is disabled at once', async () => {
    const { page } = ada;
    await page.goto(`${web}/`);
    await expect.poll(() => page.getByRole('link', { name: 'Front door' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('img', { name: 'Live updates on' }).isVisible()).toBe(true);
    await shot(page, 'member-home');
    // The door's bridge goes offline and comes back: the badge and the verdict under the name
    // follow it, and never say different things.
    const card = page.locator('li.card').filter({ has: page.getByRole('link', { name: 'Front door' }) });
    const cardText = async () => (await card.innerText()).replace(/\s+/g, ' ');
    await expect.poll(cardText).toMatch(/free You may use it now\./);
    // Every state the card goes through, as its badge and its line.
    await card.evaluate((li) => {
      const seen: string[] = [];
      (window as any).cardStates = seen;
      const note = () =>
        seen.push(
          `${li.querySelector('.badge')?.textContent}|${li.querySelector('.small')?.textContent ?? ''}`,
        );
      new MutationObserver(note).observe(li, { subtree: true, childList: true, characterData: true });
    });
    await door.proc.stop();
    await expect.poll(cardText, { timeout: 10_000 }).toMatch(/offline The door is offline/);
    door = await startOnlineDoorAgent(
      hub,
      ids.door,
      (await hub.api('GET', `/resources/${ids.door}/bridge/api-key`)).body.apiKey,
      door.dir,
    );
    await expect.poll(cardText, { timeout: 10_000 }).toMatch(/free You may use it now\./);
    const states: string[] = await page.evaluate(() => (window as any).cardStates);
    expect(states).toContain('offline|The door is offline: its controller does not answer.');
    expect(
      states.filter(
        (s) =>
          (s.startsWith('offline|') && s.includes('may use')) ||
          (s.startsWith('free|') && s.includes('offline')),
      ),
    ).toEqual([]);
    await page.getByRole('button', { name: 'Report card lost' }).click();
    await page.getByRole('button', { name: 'Yes, it is lost' }).click();
    await expect.poll(() => page.getByText('Your card is disabled').isVisible()).toBe(true);
    expect((await hub.api('GET', `/members/${ids.ada}/key`)).body.state).toBe('inactive');
    const tap = await door.tap('0A1B2C3D4E');
    expect(tap.stdout + tap.stderr).toMatch(/denied|keyInactive/);
  });

  it('a session revoked elsewhere ends the live channel and goes to sign-in; Sign out ends the session', async () => {
    const other = await phone(browser);
    await other.page.goto(`${web}/sign-in`);
    await signInWithPassword(other.page);
    await expect.poll(() => other.page.getByRole('heading', { name: 'Hello, Ada' }).isVisible()).toBe(true);
    await other.page.goto(`${web}/account`);
    // Each sign-in is named by its device, not by the browser's raw User-Agent text.
    await expect.poll(() => other.page.getByText('This browser (Chrome on Android)').isVisible()).toBe(true);
    expect(await other.page.getByText('Mozilla/5.0').count()).toBe(0);
    // A screen reader hears which sign-in each button ends.
    expect(await other.page.getByRole('button', { name: /^Sign out this browser, signed in / }).count()).toBe(
      1,
    );
    expect(
      await other.page.getByRole('button', { name: /^Sign out Chrome on Android, signed in / }).count(),
    ).toBeGreaterThan(0);
    await shot(other.page, 'member-account');
    await ada.page.goto(`${web}/`);
    await expect.poll(() => ada.page.getByRole('img', { name: 'Live updates on' }).isVisible()).toBe(true);
    await other.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect.poll(() => ada.page.url(), { timeout: 10_000 }).toContain('/sign-in');
    await expect.poll(() => other.page.url(), { timeout: 10_000 }).toContain('/sign-in');
    const live = await ada.context.request.get(`${web}/api/v1/live`);
    expect(live.status()).toBe(401);
    await other.context.close();
    // Sign out: the session ends on the hub too, not only on the page.
    await signInWithPassword(ada.page);
    await expect.poll(() => ada.page.getByRole('img', { name: 'Live updates on' }).isVisible()).toBe(true);
    await ada.page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => ada.page.url()).toContain('/sign-in');
    expect((await ada.context.request.get(`${web}/api/v1/user/me`)).status()).toBe(401);
  });
});
