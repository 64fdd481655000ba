import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tapLines } from '@makerspace/agent';
import { type BridgeConfig, offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, FakeHub, startAgent, Teardown, TestBroker, tempDir, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

const ada = { type: 'em4102', token: '0A1B2C3D4E' } as const;

async function setup(controlType: 'door' | 'machine', display: Record<string, unknown> = {}) {
  const broker = await new TestBroker().start(teardown);
  const hub = await new FakeHub(broker).start(teardown);
  const dir = await tempDir(teardown);
  const file = join(dir, 'display.json');
  const harness = await startAgent(
    teardown,
    broker,
    { controlType, display: { kind: 'simulated', file, ...display } as never },
    dir,
    { displayHoldMs: 300 },
  );
  await waitFor(() => harness.agent.link.connected, 'the agent to connect');
  const shown = async (): Promise<string[] | undefined> => {
    try {
      return JSON.parse(await readFile(file, 'utf8')).lines;
    } catch {
      return undefined;
    }
  };
  return { hub, shown, ...harness };
}

const config = (overrides: Partial<BridgeConfig> = {}): BridgeConfig => ({
  configVersion: 1,
  name: 'Laser cutter',
  controlType: 'machine',
  pulseSeconds: 1,
  maxOfflineUsage: 600,
  offlineKeys: [offlineKeyHash(ada, offlineKeySecret(API_KEY))],
  offlineKeyScheme: 'hmac-sha256',
  codeMode: 'static',
  ...overrides,
});

const lines = (expected: string[]) => (value: string[] | undefined) =>
  JSON.stringify(value) === JSON.stringify(expected);

describe('reader display', () => {
  it('idles on the resource name, shows the member on allowed, and returns to idle', async () => {
    const { hub, agent, shown } = await setup('machine');
    await hub.publish('config', config(), true);
    await waitFor(async () => lines(['Laser cutter', 'Tap your card'])(await shown()), 'the idle lines');

    hub.accessResponder = () => ({
      type: 'allowed',
      sessionId: 's1',
      member: { id: 7, name: 'Ada Lovelace' },
      messages: ['Ada', 'Lovelace'],
    });
    await agent.access.handleCard(ada);
    // Three lines on two rows: joined and wrapped.
    await waitFor(async () => lines(['Ada Lovelace', 'Machine on'])(await shown()), 'the welcome');
    await waitFor(async () => lines(['Laser cutter', 'In use'])(await shown()), 'idle, in use');
  });

  it('shows the reason on denied (the hub line), on a 20x4 module', async () => {
    const { hub, agent, shown } = await setup('door', { columns: 20, rows: 4 });
    hub.accessResponder = () => ({
      type: 'denied',
      reason: 'noPermission',
      messages: ['You need the training for this resource'],
    });
    await agent.access.handleCard(ada);
    await waitFor(
      async () => lines(['You need the', 'training for this', 'resource', ''])(await shown()),
      'the reason',
    );
    await waitFor(async () => (await shown())?.[1] === 'Tap your card', 'back to idle');
  });

  it('shows offline decisions without hub lines', async () => {
    const { hub, agent, shown, stop } = await setup('door');
    await hub.publish('config', config({ controlType: 'door', name: 'Front door' }), true);
    await waitFor(async () => (await shown())?.[0] === 'Front door', 'the door name');
    // No responder: the hub stays silent and the agent decides from its offline keys.
    const outcome = await agent.access.handleCard({ type: 'em4102', token: 'FFFFFFFFFF' });
    expect(outcome).toMatchObject({ result: 'denied', offline: true });
    await waitFor(async () => lines(['Unknown key card', ''])(await shown()), 'the offline denial');
    await stop();
    expect(await shown()).toEqual(['', '']);
  });

  it('a display that cannot open is logged and left out: taps still work', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const dir = await tempDir(teardown);
    await writeFile(join(dir, 'not-a-dir'), '');
    const { agent, logs } = await startAgent(teardown, broker, {
      display: { kind: 'simulated', file: join(dir, 'not-a-dir', 'display.json') },
    });
    await waitFor(() => agent.link.connected, 'the agent to connect');
    expect(logs().some((l) => l.msg === 'display not available; taps work without it')).toBe(true);
    hub.accessResponder = () => ({ type: 'allowed', sessionId: 'd1', stopped: true, messages: ['Bo', ''] });
    expect(await agent.access.handleCard(ada)).toMatchObject({ result: 'allowed', action: 'pulsed' });
  });

  it('lines for each outcome', () => {
    expect(tapLines({ result: 'allowed', offline: true, action: 'sessionStarted', sessionId: 'x' })).toEqual([
      'Welcome',
      'Machine on',
      '(offline)',
    ]);
    expect(
      tapLines({ result: 'message', offline: false, action: 'none', messages: ['Key assigned to Bo'] }),
    ).toEqual(['Key assigned to Bo']);
    expect(tapLines({ result: 'denied', offline: true, action: 'none', reason: null })).toEqual([
      'Access denied',
    ]);
  });
});
