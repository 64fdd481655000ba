import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@makerspace/shared/agent';
import {
  createRelay,
  HardwareError,
  isPowerMeter,
  parseDigestChallenge,
  type ShellyGen2Relay,
  shellyAuth,
} from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';
import { ShellyGen2Simulator } from '../support/shelly-gen2-simulator.js';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

async function plug(options: ConstructorParameters<typeof ShellyGen2Simulator>[0] = {}) {
  const sim = new ShellyGen2Simulator(options);
  const host = await sim.start();
  defer(() => sim.stop());
  return { sim, host };
}

function relayFor(host: string, extra: Record<string, unknown> = {}) {
  const relay = createRelay({
    kind: 'shelly',
    host,
    deadManSeconds: 2,
    pollSeconds: 0.1,
    timeoutMs: 300,
    ...extra,
  }) as ShellyGen2Relay;
  defer(() => relay.close());
  return relay;
}

describe('Shelly Gen2+ plug (against the simulator of the published RPC)', () => {
  it('switches off on open, on with the auto-off timer set, and off again', async () => {
    const { sim, host } = await plug();
    sim.output = true; // left on by a crash
    const relay = relayFor(host, { deadManSeconds: 30, pollSeconds: 5 });
    await relay.open();
    expect(sim.output).toBe(false);
    expect(relay.get()).toBe('off');

    await relay.set('on');
    expect(sim.output).toBe(true);
    expect(sim.lastToggleAfter()).toBe(30);
    expect(sim.timerEndsAt).not.toBeNull();
    expect(relay.healthy()).toBe(true);

    await relay.set('off');
    expect(sim.output).toBe(false);
    expect(sim.timerEndsAt).toBeNull();
    const offCall = sim.calls.at(-1)!;
    expect(offCall).toMatchObject({ method: 'Switch.Set', params: { id: 0, on: false } });
    expect(offCall.params).not.toHaveProperty('toggle_after');
    await relay.close();
    expect(sim.output).toBe(false);
  });

  it('renews the auto-off timer while on, so a long session is not cut', async () => {
    const { sim, host } = await plug();
    const relay = relayFor(host, { deadManSeconds: 1, pollSeconds: 0.2 });
    await relay.open();
    await relay.set('on');
    await sleep(1600); // longer than the 1 s timer: only the renewals keep it on
    expect(sim.output).toBe(true);
    const renewals = sim.calls.filter((c) => c.method === 'Switch.Set' && c.params.toggle_after === 1);
    expect(renewals.length).toBeGreaterThan(3);
  });

  it('reads the power the machine draws as a power meter', async () => {
    const { sim, host } = await plug();
    const relay = relayFor(host);
    expect(isPowerMeter(relay)).toBe(true);
    const readings: Array<number | null> = [];
    relay.onPower((watts) => readings.push(watts));
    expect(relay.lastPower()).toBeNull();
    await relay.open();
    await relay.set('on');
    sim.load = 812.4;
    await until(() => relay.lastPower() === 812.4);
    sim.load = 3.1;
    await until(() => relay.lastPower() === 3.1);
    expect(readings).toContain(812.4);
  });

  it('reports a plug that stops answering, with null power, and recovers when it answers again', async () => {
    const { sim, host } = await plug();
    const relay = relayFor(host);
    const readings: Array<number | null> = [];
    relay.onPower((watts) => readings.push(watts));
    await relay.open();
    await relay.set('on');
    sim.load = 100;
    await until(() => relay.lastPower() === 100);
    sim.stopAnswering();
    await until(() => relay.healthy() !== true);
    expect(relay.healthy()).toMatch(/not answering/);
    expect(relay.lastPower()).toBeNull();
    expect(readings.at(-1)).toBeNull();
    await expect(relay.set('off')).rejects.toMatchObject({ code: 'device-unreachable' });
    // Its own timer (2 s here) switches the plug off although the agent cannot reach it.
    await until(() => !sim.output, 4000);
    sim.answerAgain();
    await relay.set('off');
    await until(() => relay.healthy() === true);
  });

  it('reports a plug switched off by its button during a session, and does not switch it back on', async () => {
    const { sim, host } = await plug();
    const relay = relayFor(host, { deadManSeconds: 30 });
    await relay.open();
    await relay.set('on');
    sim.pressButton();
    await until(() => relay.healthy() !== true);
    expect(relay.healthy()).toMatch(/switched off by itself/);
    await sleep(300);
    expect(sim.output).toBe(false);
    await relay.set('off');
    expect(relay.healthy()).toBe(true);
  });

  it('switches off a plug turned on by its button without a session', async () => {
    const { sim, host } = await plug();
    const relay = relayFor(host);
    await relay.open();
    sim.pressButton();
    expect(sim.output).toBe(true);
    await until(() => !sim.output);
    expect(relay.get()).toBe('off');
  });

  it('signs calls with the SHA-256 digest when the plug has a password', async () => {
    const { sim, host } = await plug({ password: 'laser-plug-secret' });
    const dir = await mkdtemp(join(tmpdir(), 'shelly-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'password');
    await writeFile(file, 'laser-plug-secret\n');
    await chmod(file, 0o600);
    const relay = relayFor(host, { passwordFile: file });
    await relay.open();
    await relay.set('on');
    expect(sim.output).toBe(true);

    const wrongFile = join(dir, 'wrong');
    await writeFile(wrongFile, 'guess\n', { mode: 0o600 });
    const wrong = relayFor(host, { passwordFile: wrongFile });
    await expect(wrong.open()).rejects.toThrow(/refused the password/);
    const none = relayFor(host);
    await expect(none.open()).rejects.toThrow(/has a password; set passwordFile/);
    // A password file others can read is refused, as the bridge API key is.
    await chmod(file, 0o644);
    await expect(relayFor(host, { passwordFile: file }).open()).rejects.toThrow(/mode 0644; .*chmod 600/);
  });

  it('refuses a device that is not a Gen2+ Shelly, and an address nobody answers on', async () => {
    const { host } = await plug({ gen: 1 });
    await expect(relayFor(host).open()).rejects.toThrow(/not a Gen2 or newer Shelly/);
    const { sim, host: silent } = await plug();
    sim.stopAnswering();
    const err = await relayFor(silent)
      .open()
      .catch((e) => e);
    expect(err).toBeInstanceOf(HardwareError);
    expect(err.code).toBe('device-unreachable');
  });

  it('rejects bad config with every problem and its path', () => {
    let error: unknown;
    try {
      createRelay({
        kind: 'shelly',
        host: 'http://plug/',
        deadManSeconds: 10,
        pollSeconds: 8,
        swichId: 1,
      } as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = String((error as Error).message);
    expect(text).toMatch(/hardware\.host/);
    expect(text).toMatch(/hardware\.pollSeconds: must be at most half of deadManSeconds/);
    expect(text).toMatch(/swichId/);
  });
});

describe('Shelly digest', () => {
  it('computes the response the device checks (HA1 of admin:realm:password, fixed HA2)', () => {
    const challenge = parseDigestChallenge(
      'Digest qop="auth", realm="shellyplus1-abc", nonce="1625038762", algorithm=SHA-256',
    );
    expect(challenge).toEqual({ realm: 'shellyplus1-abc', nonce: 1625038762 });
    const auth = shellyAuth(challenge!, 'secret', 313273957);
    expect(auth).toMatchObject({
      username: 'admin',
      realm: 'shellyplus1-abc',
      algorithm: 'SHA-256',
      cnonce: 313273957,
    });
    // sha256 by hand: ha1 = sha256("admin:shellyplus1-abc:secret"), ha2 = sha256("dummy_method:dummy_uri")
    expect(auth.response).toMatch(/^[0-9a-f]{64}$/);
    expect(shellyAuth(challenge!, 'other', 313273957).response).not.toBe(auth.response);
    expect(parseDigestChallenge('Basic realm="x"')).toBeNull();
    expect(parseDigestChallenge('Digest realm="x", nonce="1", algorithm=MD5')).toBeNull();
  });
});
