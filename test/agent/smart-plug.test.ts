import { afterEach, describe, expect, it } from 'vitest';
import { ShellyGen2Simulator } from '../support/shelly-gen2-simulator.js';
import { startTestBroker, TasmotaSimulator } from '../support/tasmota-simulator.js';
import { FakeHub, startAgent, Teardown, TestBroker, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

const inFuture = () => new Date(Date.now() + 60_000).toISOString();
const timing = { deadManSeconds: 2, pollSeconds: 0.1, timeoutMs: 300 };

async function machineAgent(hardware: Record<string, unknown>) {
  const broker = await new TestBroker().start(teardown);
  const hub = await new FakeHub(broker).start(teardown);
  const harness = await startAgent(teardown, broker, { controlType: 'machine', hardware: hardware as never });
  await waitFor(() => harness.agent.link.connected, 'the agent to connect');
  return { hub, ...harness };
}

/** Items the hub received, each id once. */
function items(hub: FakeHub): any[] {
  const all = hub.messages('logs').flatMap((m) => m.items);
  return [...new Map(all.map((i: any) => [i.id, i])).values()];
}

async function sessionEndsSafe(hub: FakeHub, logs: () => Array<Record<string, unknown>>, problem: RegExp) {
  const stop = await waitFor(
    () => items(hub).find((i) => i.kind === 'stop' && i.sessionId === 's1'),
    'the session to end',
  );
  expect(stop.stopType).toBe('offline');
  const log = items(hub).find((i) => i.kind === 'log' && i.type === 'offline');
  expect(log.notes).toMatch(problem);
  expect(log.metadata).toEqual({ sessionId: 's1' });
  await hub.waitForMessage('state', (m) => m.relay === 'off');
  expect(logs().some((l) => l.msg === 'the relay failed during a machine session; ending it')).toBe(true);
}

describe('agent with a smart plug as its relay', () => {
  it('Shelly: a session switches the plug on; a plug that stops answering ends the session, safe and logged', async () => {
    const sim = new ShellyGen2Simulator();
    const host = await sim.start();
    teardown.add(() => sim.stop());
    const { hub, agent, logs } = await machineAgent({ kind: 'shelly', host, ...timing });
    const status = await hub.waitForMessage('status', (m) => m.online === true);
    expect(status.hardware).toContain(`Shelly plug at ${host}`);

    await hub.publish('commands', { id: 'c1', type: 'switchOn', sessionId: 's1', expiresAt: inFuture() });
    expect(await hub.waitForMessage('replies', (m) => m.id === 'c1')).toMatchObject({
      ok: true,
      state: { relay: 'on', sessionId: 's1' },
    });
    expect(sim.output).toBe(true);
    expect(sim.lastToggleAfter()).toBe(2);

    sim.stopAnswering();
    await sessionEndsSafe(hub, logs, /Shelly plug at .* not answering/);
    expect(agent.relay.currentSession).toBeNull();
    // The plug's own timer cuts the machine although the agent cannot reach it.
    await waitFor(() => !sim.output, 'the plug to switch itself off', 4000);
  });

  it('Tasmota: the plug going off the broker ends the session, safe and logged', async () => {
    const plugBroker = await startTestBroker();
    teardown.add(() => plugBroker.close());
    const sim = new TasmotaSimulator({ broker: plugBroker.url, topic: 'printer-plug', metering: true });
    await sim.start();
    teardown.add(() => sim.stop());
    const { hub, logs } = await machineAgent({
      kind: 'tasmota',
      broker: plugBroker.url,
      topic: 'printer-plug',
      ...timing,
    });
    await hub.publish('commands', { id: 'c1', type: 'switchOn', sessionId: 's1', expiresAt: inFuture() });
    expect(await hub.waitForMessage('replies', (m) => m.id === 'c1')).toMatchObject({ ok: true });
    expect(sim.power).toBe(true);
    expect(sim.pulseTime).toBe(20); // 2 s as PulseTime tenths

    sim.pullThePlug();
    await sessionEndsSafe(hub, logs, /Tasmota plug printer-plug .*not answering/);
  });

  it('refuses a switch-on while the plug does not answer, and the relay stays off', async () => {
    const sim = new ShellyGen2Simulator();
    const host = await sim.start();
    teardown.add(() => sim.stop());
    const { hub, agent } = await machineAgent({ kind: 'shelly', host, ...timing });
    sim.stopAnswering();
    await waitFor(() => agent.relay.hardwareHealthy() !== true, 'the plug to count as gone');
    await hub.publish('commands', { id: 'c2', type: 'switchOn', sessionId: 's2', expiresAt: inFuture() });
    const reply = await hub.waitForMessage('replies', (m) => m.id === 'c2');
    expect(reply.ok).toBe(false);
    expect(reply.state.relay).toBe('off');
    expect(sim.output).toBe(false);
  });
});
