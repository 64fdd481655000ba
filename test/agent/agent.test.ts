import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentVersion } from '@makerspace/agent';
import { type BridgeConfig, bridgeTopic, offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, FakeHub, RESOURCE_ID, startAgent, Teardown, TestBroker, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

const inFuture = () => new Date(Date.now() + 60_000).toISOString();
const card = { type: 'em4102', token: '0A1B2C3D4E' } as const;

async function setup(overrides: Parameters<typeof startAgent>[2] = {}) {
  const broker = await new TestBroker().start(teardown);
  const hub = await new FakeHub(broker).start(teardown);
  const harness = await startAgent(teardown, broker, overrides);
  await waitFor(() => harness.agent.link.connected, 'the agent to connect');
  return { broker, hub, ...harness };
}

/** Stop items the hub received, each id once (unacknowledged items are sent again). */
function stopItems(hub: FakeHub): any[] {
  const all = hub.messages('logs').flatMap((m) => m.items.filter((i: any) => i.kind === 'stop'));
  return [...new Map(all.map((i: any) => [i.id, i])).values()];
}

function bridgeConfig(overrides: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    configVersion: 1,
    name: 'Front door',
    controlType: 'door',
    pulseSeconds: 0.3,
    maxOfflineUsage: 600,
    offlineKeys: [offlineKeyHash(card, offlineKeySecret(API_KEY))],
    offlineKeyScheme: 'hmac-sha256',
    codeMode: 'static',
    ...overrides,
  };
}

describe('agent against an in-process broker', () => {
  it('connects as bridge-{resourceId} and publishes status, state and a reboot log', async () => {
    const { hub, broker, relayFile } = await setup();
    const status = await hub.waitForMessage('status', (m) => m.online === true);
    expect(status).toMatchObject({
      online: true,
      agentVersion,
      hardware: expect.stringContaining('simulated relay'),
    });
    expect(agentVersion).toBe(JSON.parse(await readFile('agent/package.json', 'utf8')).version);
    const state = await hub.waitForMessage('state');
    expect(state).toMatchObject({ relay: 'off', sessionId: null });
    expect((await relayFile())?.relay).toBe('off');
    const logs = await hub.waitForMessage('logs');
    expect(logs.items[0]).toMatchObject({ kind: 'log', type: 'reboot' });
    const clients = [...Object.values((broker.aedes as any).clients)] as Array<{ id: string }>;
    expect(clients.map((c) => c.id)).toContain(`bridge-${RESOURCE_ID}`);
  });

  it('door: switchOn pulses the relay, replies with the real state, and republishes state on every change', async () => {
    const { hub, relayFile } = await setup();
    await hub.publish('commands', { id: 'c1', type: 'switchOn', sessionId: 's1', expiresAt: inFuture() });
    const reply = await hub.waitForMessage('replies', (m) => m.id === 'c1');
    expect(reply).toMatchObject({ id: 'c1', ok: true, state: { relay: 'on', sessionId: 's1' } });
    expect((await relayFile())?.relay).toBe('on');
    await hub.waitForMessage('state', (m) => m.relay === 'on' && m.sessionId === 's1');
    // Off again after pulseSeconds.
    await waitFor(async () => (await relayFile())?.relay === 'off', 'the door to close');
    // The state goes out over MQTT after the relay switched: wait for it to arrive.
    const last = await waitFor(() => {
      const state = hub.messages('state').at(-1);
      return state?.relay === 'off' && state;
    }, 'the off state');
    expect(last).toMatchObject({ relay: 'off', sessionId: null });
  });

  it('ignores an expired command and a malformed one, then executes the next', async () => {
    const { hub, logs } = await setup();
    await hub.publish('commands', {
      id: 'old',
      type: 'pulse',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    await hub.publish('commands', '{"id": "broken", "type": ');
    await hub.publish('commands', { id: 'c2', type: 'pulse', seconds: 0.2, expiresAt: inFuture() });
    await hub.waitForMessage('replies', (m) => m.id === 'c2');
    expect(hub.messages('replies').map((r) => r.id)).toEqual(['c2']);
    expect(logs().some((l) => l.msg === 'expired command ignored' && l.commandId === 'old')).toBe(true);
    expect(logs().some((l) => l.msg === 'malformed message dropped')).toBe(true);
  });

  it('answers a command that arrives right after its subscription, while its status is still on the way', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    // A busy hub: the bridge's status waits a second for its acknowledgement, and the command is
    // sent the moment the bridge subscribes (as the hub does with a switch-on that waited for it).
    broker.aedes.authorizePublish = (client, packet, done) => {
      if (client?.id === `bridge-${RESOURCE_ID}` && packet.topic === bridgeTopic(RESOURCE_ID, 'status'))
        setTimeout(() => done(null), 1_000);
      else done(null);
    };
    broker.aedes.on('subscribe', (subscriptions, client) => {
      if (client?.id !== `bridge-${RESOURCE_ID}`) return;
      if (!subscriptions.some((s) => s.topic === bridgeTopic(RESOURCE_ID, 'commands'))) return;
      void hub.publish('commands', { id: 'early', type: 'switchOn', sessionId: 's1', expiresAt: inFuture() });
    });
    const { relayFile } = await startAgent(teardown, broker);
    const reply = await hub.waitForMessage('replies', (m) => m.id === 'early', 5_000);
    expect(reply).toMatchObject({ ok: true, state: { relay: 'on', sessionId: 's1' } });
    expect((await relayFile())?.relay).toBe('on');
  });

  it('answers a repeated command id without switching again', async () => {
    const { hub, agent } = await setup({ controlType: 'machine' });
    const command = { id: 'c3', type: 'switchOn', sessionId: 'm1', expiresAt: inFuture() } as const;
    await hub.publish('commands', command);
    await hub.waitForMessage('replies', (m) => m.id === 'c3');
    await hub.publish('commands', command);
    await waitFor(() => hub.messages('replies').length === 2, 'the second reply');
    expect(hub.messages('replies')[1]).toMatchObject({
      id: 'c3',
      ok: true,
      state: { relay: 'on', sessionId: 'm1' },
    });
    expect(hub.messages('state').filter((s) => s.relay === 'on')).toHaveLength(1);
    expect(agent.relay.currentSession?.id).toBe('m1');
  });

  it('machine: holds the relay until switchOff, and ends a session at maxDuration with a stop item', async () => {
    const { hub, relayFile } = await setup({ controlType: 'machine' });
    await hub.publish('commands', { id: 'on1', type: 'switchOn', sessionId: 'm1', expiresAt: inFuture() });
    await hub.waitForMessage('replies', (m) => m.id === 'on1');
    expect((await relayFile())?.relay).toBe('on');
    await hub.publish('commands', { id: 'off1', type: 'switchOff', expiresAt: inFuture() });
    const off = await hub.waitForMessage('replies', (m) => m.id === 'off1');
    expect(off.state).toMatchObject({ relay: 'off', sessionId: null });
    expect((await relayFile())?.relay).toBe('off');

    await hub.publish('commands', {
      id: 'on2',
      type: 'switchOn',
      sessionId: 'm2',
      maxDuration: 0.3,
      expiresAt: inFuture(),
    });
    await hub.waitForMessage('replies', (m) => m.id === 'on2' && m.ok);
    await waitFor(async () => (await relayFile())?.relay === 'off', 'the session to end at maxDuration');
    const stops = await waitFor(() => {
      const items = stopItems(hub);
      return items.length >= 2 && items;
    }, 'both stop items');
    expect(stops.map((s: any) => [s.sessionId, s.stopType])).toEqual([
      ['m1', 'normal'],
      ['m2', 'automatic'],
    ]);
  });

  it('machine without a sessionId in switchOn: replies ok false with the real (off) state', async () => {
    const { hub, relayFile } = await setup({ controlType: 'machine' });
    await hub.publish('commands', { id: 'bad', type: 'switchOn', expiresAt: inFuture() });
    const reply = await hub.waitForMessage('replies', (m) => m.id === 'bad');
    expect(reply).toMatchObject({
      ok: false,
      state: { relay: 'off' },
      error: expect.stringContaining('sessionId'),
    });
    expect((await relayFile())?.relay).toBe('off');
  });

  it('keeps logs while the hub is away, sends them after reconnect, resends until acknowledged', async () => {
    const { hub, broker, agent } = await setup();
    // Acknowledge the reboot log so only the new ones matter.
    const first = await hub.waitForMessage('logs');
    await hub.ack(first.items.map((i: any) => i.id));
    await waitFor(() => agent.queue.size === 0, 'the reboot log to be acknowledged');

    await broker.down();
    await waitFor(() => !agent.link.connected, 'the agent to notice the hub is gone');
    const a = await agent.access.handleCard(card);
    const b = await agent.access.handleCard({ type: 'nfca', token: '04AABBCC' });
    expect([a.offline, b.offline]).toEqual([true, true]);
    expect(agent.queue.size).toBe(2);
    const [logA, logB] = agent.queue.pending();
    hub.received.length = 0;

    await broker.up();
    const batch = await hub.waitForMessage('logs', (m) => m.items.some((i: any) => i.id === logA.id));
    expect(batch.items.map((i: any) => i.id)).toEqual([logA.id, logB.id]);
    expect(batch.items[0]).toMatchObject({
      kind: 'log',
      type: 'denied',
      reason: 'unknownKey',
      offline: true,
    });
    // status and state are published again on the new connection.
    await hub.waitForMessage('status', (m) => m.online === true);
    await hub.waitForMessage('state', (m) => m.relay === 'off');

    // Acknowledge only the first: the second comes again after the ack timeout.
    await hub.ack([logA.id]);
    await waitFor(() => !agent.queue.has(logA.id), 'the acknowledged log to leave the queue');
    const resent = await hub.waitForMessage(
      'logs',
      (m) => m !== batch && m.items.some((i: any) => i.id === logB.id),
    );
    expect(resent.items.map((i: any) => i.id)).toEqual([logB.id]);
    await hub.ack([logB.id]);
    await waitFor(() => agent.queue.size === 0, 'the queue to drain');
    const journal = await readFile(join(agent['deps'].config.dataDir, 'queue.jsonl'), 'utf8');
    expect(journal).toContain(`{"ack":["${logB.id}"]}`);
  });

  it('door: a card allowed by the hub opens the door; denied does nothing', async () => {
    const { hub, agent, relayFile } = await setup();
    hub.accessResponder = (req) =>
      req.keys[0].token === card.token
        ? { type: 'allowed', sessionId: 'd1', stopped: true, member: { id: 3, name: 'Ada' } }
        : { type: 'denied', reason: 'noPackage', messages: ['No active package'] };
    const denied = await agent.access.handleCard({ type: 'em4102', token: 'FFFF' });
    expect(denied).toMatchObject({ result: 'denied', offline: false, action: 'none', reason: 'noPackage' });
    expect((await relayFile())?.relay).toBe('off');
    const allowed = await agent.access.handleCard(card);
    expect(allowed).toMatchObject({ result: 'allowed', offline: false, action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    const request = hub.messages('access')[1];
    expect(request).toMatchObject({ keys: [card], currentSession: null });
    await waitFor(async () => (await relayFile())?.relay === 'off', 'the door to close');
  });

  it('machine: allowed starts, same member stops, another member takes over, denied changes nothing', async () => {
    const { hub, agent, relayFile } = await setup({ controlType: 'machine' });
    let next = 1;
    const members: Record<string, { id: number; name: string }> = {
      '0A0A': { id: 1, name: 'Ada' },
      '0B0B': { id: 2, name: 'Bo' },
    };
    hub.accessResponder = (req) => {
      const member = members[req.keys[0].token];
      if (!member) return { type: 'denied', reason: 'unknownKey' };
      return { type: 'allowed', sessionId: `s${next++}`, maxDuration: null, member };
    };
    const ada = { type: 'em4102', token: '0A0A' } as const;
    const bo = { type: 'em4102', token: '0B0B' } as const;

    expect(await agent.access.handleCard(ada)).toMatchObject({ action: 'sessionStarted', sessionId: 's1' });
    expect((await relayFile())?.relay).toBe('on');
    expect(await agent.access.handleCard({ type: 'em4102', token: '0C0C' })).toMatchObject({
      result: 'denied',
    });
    expect(agent.relay.currentSession?.id).toBe('s1');
    expect(await agent.access.handleCard(bo)).toMatchObject({ action: 'takeover', sessionId: 's2' });
    expect(agent.relay.currentSession?.id).toBe('s2');
    expect((await relayFile())?.relay).toBe('on');
    expect(hub.messages('access').at(-1).currentSession).toEqual({ id: 's1' });
    expect(await agent.access.handleCard(bo)).toMatchObject({ action: 'sessionStopped', sessionId: 's2' });
    expect((await relayFile())?.relay).toBe('off');
    expect(agent.relay.currentSession).toBeNull();

    const stops = await waitFor(() => {
      const items = stopItems(hub);
      return items.length >= 2 && items;
    }, 'the stop items');
    expect(stops.map((s: any) => [s.sessionId, s.stopType])).toEqual([
      ['s1', 'takeover'],
      ['s2', 'normal'],
    ]);
  });

  it('saves the retained bridge config and decides offline from it when the hub is away', async () => {
    const { hub, broker, agent, relayFile } = await setup({ controlType: 'machine' });
    await hub.publish('config', bridgeConfig({ controlType: 'machine', maxOfflineUsage: 0.4 }), true);
    const saved = await waitFor(async () => {
      try {
        return JSON.parse(await readFile(join(agent['deps'].config.dataDir, 'config.json'), 'utf8'));
      } catch {
        return undefined;
      }
    }, 'config.json');
    expect(saved.offlineKeys).toEqual([offlineKeyHash(card, offlineKeySecret(API_KEY))]);

    await broker.down();
    await waitFor(() => !agent.link.connected, 'the agent to notice the hub is gone');
    const unknown = await agent.access.handleCard({ type: 'em4102', token: '1234' });
    expect(unknown).toMatchObject({ result: 'denied', offline: true, reason: 'unknownKey' });
    const known = await agent.access.handleCard(card);
    expect(known).toMatchObject({ result: 'allowed', offline: true, action: 'sessionStarted' });
    expect((await relayFile())?.relay).toBe('on');
    // maxOfflineUsage limits the offline session.
    await waitFor(async () => (await relayFile())?.relay === 'off', 'the offline session to end');
    const items = agent.queue.pending();
    const allowed = items.find((i) => i.kind === 'log' && i.type === 'allowed');
    expect(allowed).toMatchObject({ offline: true, keys: [card], sessionId: known.sessionId });
    expect(items.find((i) => i.kind === 'stop')).toMatchObject({
      sessionId: known.sessionId,
      stopType: 'automatic',
    });
  });

  it('decides offline when the hub is connected but does not answer in time', async () => {
    const { hub, agent, relayFile } = await setup();
    await hub.publish('config', bridgeConfig(), true);
    await waitFor(() => agent.bridgeConfig.current, 'the bridge config');
    const outcome = await agent.access.handleCard(card);
    expect(outcome).toMatchObject({ result: 'allowed', offline: true, action: 'pulsed' });
    expect((await relayFile())?.relay).toBe('on');
    expect(hub.messages('access')).toHaveLength(1);
  });

  it('uses the saved config after a restart without the hub', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const first = await startAgent(teardown, broker);
    await waitFor(() => first.agent.link.connected, 'the agent to connect');
    await hub.publish('config', bridgeConfig(), true);
    await waitFor(() => first.agent.bridgeConfig.current, 'the bridge config');
    await first.stop();
    await hub.waitForMessage('status', (m) => m.online === false);
    await broker.down();

    const second = await startAgent(teardown, broker, {}, first.dir);
    expect(second.agent.link.connected).toBe(false);
    expect(second.agent.bridgeConfig.current?.configVersion).toBe(1);
    expect(await second.agent.access.handleCard(card)).toMatchObject({ result: 'allowed', offline: true });
  });

  it('a machine session left running by a crash is stopped (offline) after restart', async () => {
    const broker = await new TestBroker().start(teardown);
    const hub = await new FakeHub(broker).start(teardown);
    const first = await startAgent(teardown, broker, { controlType: 'machine' });
    await waitFor(() => first.agent.link.connected, 'the agent to connect');
    await hub.publish('commands', { id: 'c', type: 'switchOn', sessionId: 'crash-1', expiresAt: inFuture() });
    await hub.waitForMessage('replies', (m) => m.id === 'c');
    // Simulate a crash: stop without the relay controller ending the session.
    const link = first.agent.link;
    await link.stop();
    await first.agent.queue.stop();
    await hub.waitForMessage('status', (m) => m.online === false);

    const second = await startAgent(teardown, broker, { controlType: 'machine' }, first.dir);
    expect(second.agent.queue.pending().find((i) => i.kind === 'stop')).toMatchObject({
      sessionId: 'crash-1',
      stopType: 'offline',
    });
    expect((await second.relayFile())?.relay).toBe('off');
  });

  it('publishes online false (retained) when it stops and the broker holds it for the hub', async () => {
    const { hub, stop, broker } = await setup();
    await hub.waitForMessage('status', (m) => m.online === true);
    await stop();
    await hub.waitForMessage('status', (m) => m.online === false);
    const late = await new FakeHub(broker).start(teardown);
    const retained = await late.waitForMessage('status');
    expect(retained).toEqual({ online: false });
    expect(late.received.find((r) => r.name === 'status')?.retain).toBe(true);
  });

  it('does not connect with a wrong API key, says so, and keeps retrying', async () => {
    const broker = await new TestBroker().start(teardown);
    broker.accounts.set(String(RESOURCE_ID), 'another-key');
    const { agent, logs } = await startAgent(teardown, broker);
    await waitFor(
      () => logs().some((l) => String(l.msg).includes('refused the bridge API key')),
      'the refusal log',
    );
    expect(agent.link.connected).toBe(false);
    expect(JSON.stringify(logs())).not.toContain('bridge-key-0123456789abcdef');
    // It keeps retrying (with backoff), so fixing the key on the hub brings it back.
    broker.accounts.set(String(RESOURCE_ID), 'bridge-key-0123456789abcdef');
    await waitFor(() => agent.link.connected, 'the agent to connect once the key is accepted');
  });
});
