import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@makerspace/shared/agent';
import {
  createRelay,
  isPowerMeter,
  parseEnergyPower,
  parsePowerState,
  pulseTimeSeconds,
  pulseTimeValue,
  type TasmotaRelay,
  tasmotaTopic,
} from '@makerspace/hardware';
import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { startTestBroker, TasmotaSimulator } from '../support/tasmota-simulator.js';
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

async function setup(extra: Record<string, unknown> = {}, metering = true) {
  const broker = await startTestBroker();
  defer(() => broker.close());
  const sim = new TasmotaSimulator({ broker: broker.url, topic: 'laser-plug', metering });
  await sim.start();
  defer(() => sim.stop());
  const relay = createRelay({
    kind: 'tasmota',
    broker: broker.url,
    topic: 'laser-plug',
    deadManSeconds: 2,
    pollSeconds: 0.1,
    timeoutMs: 300,
    ...extra,
  }) as TasmotaRelay;
  defer(() => relay.close());
  return { sim, relay, broker };
}

describe('Tasmota plug over MQTT (against the simulator of the published commands)', () => {
  it("turns mqtt-packet's number cache off before its first packet, as the hub link does", async () => {
    // The default, as in an agent whose plug is opened before its hub link.
    mqttPacket.writeToStream.cacheNumbers = true;
    const { relay } = await setup();
    await relay.open();
    // Off: no 65,536 pre-built Buffers (about 6 MiB of the agent's 60 MiB).
    expect(mqttPacket.writeToStream.cacheNumbers).toBe(false);
  });

  it('sets PulseTime as the auto-off timer, switches off on open, then on and off', async () => {
    const { sim, relay } = await setup({ deadManSeconds: 60, pollSeconds: 5 });
    sim.power = true; // left on by a crash
    await relay.open();
    expect(sim.pulseTime).toBe(160); // 60 s: seconds + 100
    expect(sim.power).toBe(false);
    await relay.set('on');
    expect(sim.power).toBe(true);
    expect(sim.pulseEndsAt).not.toBeNull();
    await relay.set('off');
    expect(sim.power).toBe(false);
    expect(sim.commands).toContainEqual(['PulseTime1', '160']);
    expect(sim.commands).toContainEqual(['POWER1', 'ON']);
    expect(sim.commands).toContainEqual(['POWER1', 'OFF']);
    await relay.close();
    expect(sim.power).toBe(false);
  });

  it('renews the pulse timer with POWER ON while on, so a long session is not cut', async () => {
    const { sim, relay } = await setup({ deadManSeconds: 1, pollSeconds: 0.2 });
    await relay.open();
    expect(sim.pulseTime).toBe(10); // 1 s in tenths
    await relay.set('on');
    await sleep(1600);
    expect(sim.power).toBe(true);
    expect(
      sim.commands.filter(([name, payload]) => name === 'POWER1' && payload === 'ON').length,
    ).toBeGreaterThan(3);
  });

  it('reads ENERGY.Power from its Status 10 polls', async () => {
    const { sim, relay } = await setup();
    expect(isPowerMeter(relay)).toBe(true);
    await relay.open();
    await relay.set('on');
    sim.load = 1450;
    await until(() => relay.lastPower() === 1450);
    expect(sim.commands).toContainEqual(['Status', '10']);
  });

  it('reads ENERGY.Power from tele SENSOR between polls', async () => {
    const { sim, relay } = await setup({ pollSeconds: 10, deadManSeconds: 30 });
    await relay.open();
    await relay.set('on');
    sim.load = 12;
    sim.telemetry();
    await until(() => relay.lastPower() === 12);
    expect(sim.commands).not.toContainEqual(['Status', '10']);
  });

  it('a plug without metering is no less a relay: power stays unknown', async () => {
    const { relay } = await setup({}, false);
    await relay.open();
    await relay.set('on');
    await sleep(300);
    expect(relay.lastPower()).toBeNull();
    expect(relay.healthy()).toBe(true);
  });

  it('reports a plug that stops answering; its pulse timer switches it off', async () => {
    const { sim, relay } = await setup();
    const readings: Array<number | null> = [];
    relay.onPower((watts) => readings.push(watts));
    await relay.open();
    await relay.set('on');
    sim.load = 50;
    await until(() => relay.lastPower() === 50);
    sim.stopAnswering();
    await until(() => relay.healthy() !== true);
    expect(relay.healthy()).toMatch(/not answering/);
    expect(readings.at(-1)).toBeNull();
    await until(() => !sim.power, 4000);
    sim.answerAgain();
    await relay.set('off');
    await until(() => relay.healthy() === true);
  });

  it('reports a plug whose connection drops at once, from its Last Will', async () => {
    const { sim, relay } = await setup({ pollSeconds: 5, deadManSeconds: 30 });
    await relay.open();
    await relay.set('on');
    sim.pullThePlug();
    await until(() => relay.healthy() !== true, 2000);
    expect(relay.healthy()).toMatch(/Last Will/);
  });

  it('reports a plug switched off by its button during a session', async () => {
    const { sim, relay } = await setup({ deadManSeconds: 30 });
    await relay.open();
    await relay.set('on');
    sim.pressButton();
    await until(() => relay.healthy() !== true);
    expect(relay.healthy()).toMatch(/switched off by itself/);
    expect(sim.power).toBe(false);
  });

  it('fails to open when the plug does not answer on the broker', async () => {
    const broker = await startTestBroker();
    defer(() => broker.close());
    const relay = createRelay({ kind: 'tasmota', broker: broker.url, topic: 'nobody', timeoutMs: 200 });
    defer(() => relay.close());
    await expect(relay.open()).rejects.toMatchObject({ code: 'device-unreachable' });
    // No broker at all (port 9 on this host: nobody listens).
    const nowhere = createRelay({
      kind: 'tasmota',
      broker: 'mqtt://127.0.0.1:9',
      topic: 'x',
      timeoutMs: 200,
    });
    defer(() => nowhere.close());
    const err = await nowhere.open().catch((e) => e);
    expect(err.message).toMatch(/Tasmota plug x .*(broker|connecting)/);
  });

  it('logs in to a broker with a user and the password from a 0600 file', async () => {
    const broker = await startTestBroker({ username: 'agent', password: 's3cret' });
    defer(() => broker.close());
    const dir = await mkdtemp(join(tmpdir(), 'tasmota-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const good = join(dir, 'good');
    const bad = join(dir, 'bad');
    await writeFile(good, 's3cret\n', { mode: 0o600 });
    await writeFile(bad, 'guess\n', { mode: 0o600 });
    // No plug on this broker: only the agent's login is checked.
    const relay = createRelay({
      kind: 'tasmota',
      broker: broker.url,
      topic: 'nobody',
      username: 'agent',
      passwordFile: bad,
      timeoutMs: 300,
    });
    defer(() => relay.close());
    await expect(relay.open()).rejects.toThrow(/Not authorized|Bad username or password|connecting/);
    const ok = createRelay({
      kind: 'tasmota',
      broker: broker.url,
      topic: 'nobody',
      username: 'agent',
      passwordFile: good,
      timeoutMs: 300,
    });
    defer(() => ok.close());
    // Connected and subscribed: it then waits for the plug, which is not there.
    await expect(ok.open()).rejects.toThrow(/PulseTime1: no answer/);
  });

  it('rejects bad config with every problem and its path', () => {
    let error: unknown;
    try {
      createRelay({ kind: 'tasmota', broker: 'http://x', topic: 'a/b', relay: 0 } as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = String((error as Error).message);
    expect(text).toMatch(/hardware\.broker: must be a URL with scheme mqtt/);
    expect(text).toMatch(/hardware\.topic/);
    expect(text).toMatch(/hardware\.relay/);
  });
});

describe('Tasmota messages', () => {
  it('encodes PulseTime as tenths up to 11.1 s and seconds + 100 above', () => {
    expect(pulseTimeValue(0)).toBe(0);
    expect(pulseTimeValue(1)).toBe(10);
    expect(pulseTimeValue(11)).toBe(110);
    expect(pulseTimeValue(12)).toBe(112);
    expect(pulseTimeValue(60)).toBe(160);
    expect(pulseTimeValue(3600)).toBe(3700);
    expect(pulseTimeSeconds(160)).toBe(60);
    expect(pulseTimeSeconds(5)).toBe(0.5);
    expect(() => pulseTimeValue(-1)).toThrow(RangeError);
  });

  it('reads power states and energy readings', () => {
    expect(parsePowerState('ON')).toBe(true);
    expect(parsePowerState('off')).toBe(false);
    expect(parsePowerState('maybe')).toBeNull();
    expect(parseEnergyPower('{"Time":"x","ENERGY":{"Power":23}}')).toBe(23);
    expect(parseEnergyPower('{"StatusSNS":{"ENERGY":{"Power":[5,7]}}}', 2)).toBe(7);
    expect(parseEnergyPower('{"StatusSNS":{"Time":"x"}}')).toBeUndefined();
    expect(parseEnergyPower('not json')).toBeUndefined();
    expect(tasmotaTopic('%prefix%/%topic%/', 'cmnd', 'plug', 'POWER')).toBe('cmnd/plug/POWER');
    expect(tasmotaTopic('tasmota/%topic%/%prefix%', 'stat', 'plug', 'POWER')).toBe('tasmota/plug/stat/POWER');
  });
});
