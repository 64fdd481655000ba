import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BridgeConfig, offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, FakeHub, startAgent, Teardown, TestBroker, tempDir, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

const card = { type: 'em4102', token: '0A1B2C3D4E' } as const;

/** A laser whose lid interlock is open, read from the simulated inputs file. */
async function laserWithOpenLid() {
  const dir = await tempDir(teardown);
  const inputsFile = join(dir, 'inputs.json');
  await writeFile(inputsFile, JSON.stringify({ lid: false }));
  const broker = await new TestBroker().start(teardown);
  const hub = await new FakeHub(broker).start(teardown);
  const harness = await startAgent(
    teardown,
    broker,
    {
      controlType: 'machine',
      hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json'), inputsFile },
      inputs: [{ name: 'lid', kind: 'interlock', label: 'Lid' }],
    },
    dir,
  );
  await waitFor(() => harness.agent.link.connected, 'the agent to connect');
  return { hub, ...harness };
}

describe('card taps at a machine whose interlock is open', () => {
  it('reports the open lid to the hub', async () => {
    const { hub } = await laserWithOpenLid();
    const message = await hub.waitForMessage('inputs');
    expect(message).toMatchObject({
      inputs: [{ name: 'lid', kind: 'interlock', label: 'Lid', active: false }],
      idleWarning: null,
    });
  });

  it('a tap the hub allowed from an older state starts nothing, and the session the hub opened ends', async () => {
    const { hub, agent, relayFile } = await laserWithOpenLid();
    hub.accessResponder = () => ({ type: 'allowed', sessionId: 'h1', member: { id: 3, name: 'Ada' } });
    const outcome = await agent.access.handleCard(card);
    expect(outcome).toMatchObject({
      result: 'denied',
      reason: 'interlock',
      action: 'none',
      messages: ['the interlock "Lid" is open'],
    });
    expect((await relayFile())?.relay).toBe('off');
    const stop = await waitFor(
      () =>
        hub
          .messages('logs')
          .flatMap((m) => m.items)
          .find((i: any) => i.kind === 'stop'),
      'the stop of the hub session',
    );
    expect(stop).toMatchObject({ sessionId: 'h1', stopType: 'interlock' });
  });

  it('offline, a known card is denied with reason interlock (logged for the hub)', async () => {
    const { hub, agent, relayFile } = await laserWithOpenLid();
    const config: BridgeConfig = {
      configVersion: 1,
      name: 'Laser',
      controlType: 'machine',
      pulseSeconds: 1,
      maxOfflineUsage: 600,
      offlineKeys: [offlineKeyHash(card, offlineKeySecret(API_KEY))],
      offlineKeyScheme: 'hmac-sha256',
      codeMode: 'static',
    };
    await hub.publish('config', config, true);
    await waitFor(() => agent.bridgeConfig.current?.configVersion === 1, 'the config');
    // The hub does not answer the tap: the agent decides from its offline keys.
    const outcome = await agent.access.handleCard(card);
    expect(outcome).toMatchObject({ result: 'denied', offline: true, reason: 'interlock' });
    expect((await relayFile())?.relay).toBe('off');
    const log = await waitFor(
      () =>
        hub
          .messages('logs')
          .flatMap((m) => m.items)
          .find((i: any) => i.type === 'denied'),
      'the denied log',
    );
    expect(log).toMatchObject({ reason: 'interlock', offline: true, notes: 'the interlock "Lid" is open' });
  });
});
