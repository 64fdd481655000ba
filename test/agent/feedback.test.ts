import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sleep } from '@makerspace/hardware';
import { type BridgeConfig, offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, FakeHub, startAgent, Teardown, TestBroker, tempDir, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

const member = { type: 'em4102', token: '0A1B2C3D4E' } as const;
const stranger = { type: 'em4102', token: 'FFFF' } as const;

interface OutputFile {
  relay: 'on' | 'off';
  since: string;
}

/** One played step of a beep: how long it waited and what the output's state file showed meanwhile. */
interface Step {
  ms: number;
  during: OutputFile;
}

async function readOutput(file: string): Promise<OutputFile | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as OutputFile;
  } catch {
    return null;
  }
}

/**
 * Starts a door agent with `feedback` on a simulated output. The beep sleeps for real, but first
 * notes the output file, so the test sees the buzzer on while it sounds.
 */
async function setup(options: { feedback?: boolean; feedbackFile?: string; sleep?: Sleep } = {}) {
  const broker = await new TestBroker().start(teardown);
  const hub = await new FakeHub(broker).start(teardown);
  const dir = await tempDir(teardown);
  const feedbackFile = options.feedbackFile ?? join(dir, 'feedback', 'buzzer.json');
  const steps: Step[] = [];
  const sleep: Sleep =
    options.sleep ??
    (async (ms) => {
      const during = await readOutput(feedbackFile);
      if (during) steps.push({ ms, during });
      await new Promise((resolve) => setTimeout(resolve, ms));
    });
  const overrides =
    options.feedback === false ? {} : { feedback: { kind: 'simulated' as const, stateFile: feedbackFile } };
  const harness = await startAgent(teardown, broker, overrides, dir, { feedbackSleep: sleep });
  await waitFor(() => harness.agent.link.connected, 'the agent to connect');
  hub.accessResponder = (req) =>
    req.keys[0].token === member.token
      ? { type: 'allowed', sessionId: 'd1', stopped: true, member: { id: 3, name: 'Ada' } }
      : { type: 'denied', reason: 'noPackage', messages: ['No active package'] };
  return { hub, broker, feedbackFile, steps, ...harness };
}

/**
 * Waits until the output is off again after `count` beeps and returns the last beep's on-period
 * in ms, from the `since` of the state file while it sounded to the `since` of the final off.
 */
async function lastOnPeriod(feedbackFile: string, steps: Step[], count: number): Promise<number> {
  const off = await waitFor(async () => {
    if (steps.length < count) return false;
    const file = await readOutput(feedbackFile);
    // Only an "off" written after this beep started counts (not the end of the one before).
    const after = file && Date.parse(file.since) >= Date.parse(steps[count - 1].during.since);
    return file?.relay === 'off' && after && file;
  }, 'the beep to end');
  return Date.parse(off.since) - Date.parse(steps[count - 1].during.since);
}

describe('feedback output (buzzer/LED) on the agent', () => {
  it('plays the warning as three short beeps: on, off, on, off, on for 100 ms each', async () => {
    const { agent, feedbackFile, steps } = await setup();
    agent.feedback.signal('warning');
    await waitFor(
      async () => steps.length === 5 && (await readOutput(feedbackFile))?.relay === 'off',
      'the warning',
    );
    expect(steps.map((s) => [s.ms, s.during.relay])).toEqual([
      [100, 'on'],
      [100, 'off'],
      [100, 'on'],
      [100, 'off'],
      [100, 'on'],
    ]);
  });

  it('starts off, beeps short on an allowed tap and long on a denied one, and is off after stop', async () => {
    const { agent, feedbackFile, steps, relayFile, stop } = await setup();
    expect((await readOutput(feedbackFile))?.relay).toBe('off');

    const allowed = await agent.access.handleCard(member);
    expect(allowed).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    const short = await lastOnPeriod(feedbackFile, steps, 1);
    expect(steps[0]).toMatchObject({ ms: 150, during: { relay: 'on' } });
    expect(short).toBeGreaterThanOrEqual(145);
    expect(short).toBeLessThan(700);

    steps.length = 0;
    const denied = await agent.access.handleCard(stranger);
    expect(denied).toMatchObject({ result: 'denied', reason: 'noPackage' });
    const long = await lastOnPeriod(feedbackFile, steps, 1);
    expect(steps[0]).toMatchObject({ ms: 800, during: { relay: 'on' } });
    expect(long).toBeGreaterThanOrEqual(795);
    expect(long).toBeGreaterThan(short);

    await stop();
    expect((await readOutput(feedbackFile))?.relay).toBe('off');
  });

  it('beeps for offline decisions and for a message reply too', async () => {
    const { hub, broker, agent, feedbackFile, steps } = await setup();
    hub.accessResponder = () => ({ type: 'message', messages: ['Card assigned to Ada'] });
    expect(await agent.access.handleCard(member)).toMatchObject({ result: 'message' });
    await lastOnPeriod(feedbackFile, steps, 1);
    expect(steps.map((s) => s.ms)).toEqual([150]);

    const config: BridgeConfig = {
      configVersion: 1,
      name: 'Front door',
      controlType: 'door',
      pulseSeconds: 0.3,
      maxOfflineUsage: 600,
      offlineKeys: [offlineKeyHash(member, offlineKeySecret(API_KEY))],
      offlineKeyScheme: 'hmac-sha256',
      codeMode: 'static',
    };
    await hub.publish('config', config, true);
    // waitFor takes null as a value, so ask for the config explicitly.
    await waitFor(() => agent.bridgeConfig.current !== null, 'the bridge config');
    await broker.down();
    await waitFor(() => !agent.link.connected, 'the agent to notice the hub is gone');
    steps.length = 0;
    expect(await agent.access.handleCard(member)).toMatchObject({ result: 'allowed', offline: true });
    await lastOnPeriod(feedbackFile, steps, 1);
    expect(await agent.access.handleCard(stranger)).toMatchObject({ result: 'denied', offline: true });
    expect(await lastOnPeriod(feedbackFile, steps, 2)).toBeGreaterThanOrEqual(795);
    expect(steps.map((s) => s.ms)).toEqual([150, 800]);
  });

  it('the tap and the door do not wait for the beep', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { agent, feedbackFile, relayFile } = await setup({ sleep: () => held });
    const outcome = await agent.access.handleCard(member);
    expect(outcome).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    // The beep is still sounding (its sleep never ends until released) while the tap is done.
    await waitFor(async () => (await readOutput(feedbackFile))?.relay === 'on', 'the buzzer to sound');
    release();
    await waitFor(async () => (await readOutput(feedbackFile))?.relay === 'off', 'the buzzer to stop');
  });

  it('a feedback output that fails is logged and the door still opens', async () => {
    const { agent, feedbackFile, relayFile, logs, dir } = await setup();
    await rm(join(dir, 'feedback'), { recursive: true, force: true });
    const outcome = await agent.access.handleCard(member);
    expect(outcome).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    const failure = await waitFor(
      () => logs().find((l) => l.msg === 'feedback beep failed'),
      'the feedback failure in the log',
    );
    expect(failure).toMatchObject({ feature: 'feedback', pattern: 'allowed' });
    expect(await readOutput(feedbackFile)).toBeNull();
    // The next tap is decided as usual.
    expect(await agent.access.handleCard(stranger)).toMatchObject({ result: 'denied' });
  });

  it('an output that cannot be opened at start is left out: the agent runs and taps work', async () => {
    const dir = await tempDir(teardown);
    const notADirectory = join(dir, 'plain-file');
    await writeFile(notADirectory, '');
    const { agent, relayFile, logs } = await setup({ feedbackFile: join(notADirectory, 'buzzer.json') });
    expect(
      logs().find((l) => l.msg === 'feedback output not available; taps work without beeps'),
    ).toMatchObject({
      feature: 'feedback',
      level: 50,
    });
    expect(await agent.access.handleCard(member)).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
  });

  it('without feedback in the config, taps behave as before and nothing beeps', async () => {
    const played: number[] = [];
    const { agent, relayFile, logs } = await setup({
      feedback: false,
      sleep: async (ms) => {
        played.push(ms);
      },
    });
    expect(agent['deps'].config.feedback).toBeUndefined();
    expect(await agent.access.handleCard(stranger)).toMatchObject({ result: 'denied', action: 'none' });
    expect((await relayFile())?.relay).toBe('off');
    expect(await agent.access.handleCard(member)).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(played).toEqual([]);
    expect(logs().filter((l) => l.feature === 'feedback')).toEqual([]);
  });
});
