import { join } from 'node:path';
import { DoorHoldFeature, LogQueue, RelayController } from '@makerspace/agent';
import { createRelay } from '@makerspace/hardware';
import type { BridgeConfig } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger, Teardown, tempDir, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

/** The saved config as the feature sees it (bridge-config.store.ts), set by the test. */
class FakeConfig {
  current: BridgeConfig | null = null;
  private readonly listeners = new Set<(c: BridgeConfig) => void>();
  onChange(listener: (c: BridgeConfig) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(fields: Partial<BridgeConfig>) {
    this.current = {
      configVersion: 1,
      name: 'Front door',
      controlType: 'door',
      pulseSeconds: 1,
      maxOfflineUsage: 0,
      offlineKeys: [],
      codeMode: 'static',
      ...fields,
    } as BridgeConfig;
    for (const listener of this.listeners) listener(this.current);
  }
}

/** A door agent's relay, queue and hold feature on a simulated relay in `dir`. */
async function door(dir: string, config: FakeConfig, now: () => Date = () => new Date()) {
  const { logger } = memoryLogger();
  const queue = new LogQueue({ dir, logger });
  await queue.start();
  const hardware = createRelay({ kind: 'simulated', stateFile: join(dir, 'relay.json') });
  const relay = new RelayController({
    relay: hardware,
    controlType: 'door',
    queue,
    dataDir: dir,
    logger,
    now,
  });
  await relay.start();
  const hold = new DoorHoldFeature({ relay, config, queue, dataDir: dir, logger, now });
  await hold.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await hold.stop();
    await relay.stop();
    await queue.stop();
  };
  teardown.add(stop);
  return { queue, relay, hold, hardware, stop };
}

describe('doors held unlocked (door modes)', () => {
  it('holds the relay on until unlockUntil, relocks by itself at that time, and logs the hold as one stopped log', async () => {
    const dir = await tempDir(teardown);
    const config = new FakeConfig();
    const d = await door(dir, config);
    expect(d.hardware.get()).toBe('off');
    const until = new Date(Date.now() + 400).toISOString();
    config.set({ unlockMode: 'openingHours', unlockUntil: until });
    await waitFor(() => d.hardware.get() === 'on', 'relay held on');
    // A tap's pulse during the hold leaves the door unlocked when it ends.
    await d.relay.pulse(0.05);
    await new Promise((r) => setTimeout(r, 120));
    expect(d.hardware.get()).toBe('on');

    await waitFor(() => d.hardware.get() === 'off', 'relay off at the window end', 3000);
    const items = d.queue.pending();
    const start = items.find((i) => i.kind === 'log' && i.memberId === null && i.type === 'allowed');
    expect(start).toMatchObject({ metadata: { unlockMode: 'openingHours', unlockUntil: until } });
    expect(items.find((i) => i.kind === 'stop')).toMatchObject({
      sessionId: start?.id,
      stopType: 'automatic',
      stoppedAt: until,
    });
    expect(d.hold.current).toBeNull();
  });

  it('relocks at once when the hub takes the window back (lock now, a holiday), with a normal stop', async () => {
    const dir = await tempDir(teardown);
    const config = new FakeConfig();
    const d = await door(dir, config);
    config.set({ unlockMode: 'firstIn', unlockUntil: new Date(Date.now() + 3_600_000).toISOString() });
    await waitFor(() => d.hardware.get() === 'on', 'relay held on');
    config.set({ unlockMode: 'firstIn' });
    await waitFor(() => d.hardware.get() === 'off', 'relay relocked');
    expect(d.queue.pending().find((i) => i.kind === 'stop')).toMatchObject({ stopType: 'normal' });
    // A window already over when the config comes does not unlock the door.
    config.set({ unlockMode: 'openingHours', unlockUntil: new Date(Date.now() - 1000).toISOString() });
    await d.hold.evaluate();
    expect(d.hardware.get()).toBe('off');
    expect(d.queue.pending().filter((i) => i.kind === 'log' && i.type === 'allowed')).toHaveLength(1);
  });

  it('keeps holding across a restart without the hub, and ends the hold at the window end if that passed while stopped', async () => {
    const dir = await tempDir(teardown);
    const config = new FakeConfig();
    let shift = 0;
    const now = () => new Date(Date.now() + shift);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    config.set({ unlockMode: 'openingHours', unlockUntil: until });
    const first = await door(dir, config, now);
    await waitFor(() => first.hardware.get() === 'on', 'relay held on');
    const holdId = first.hold.current?.id;
    await first.stop();
    expect(first.hardware.get()).toBe('off');

    // Restart with the saved config and no hub: the same hold goes on (no second log).
    const second = await door(dir, config, now);
    await waitFor(() => second.hardware.get() === 'on', 'relay held on after the restart');
    expect(second.hold.current?.id).toBe(holdId);
    expect(second.queue.pending().filter((i) => i.kind === 'log' && i.type === 'allowed')).toHaveLength(1);
    await second.stop();

    // Stopped past the window's end: the next start relocks and stops the log at the end time.
    shift = 2 * 3_600_000;
    const third = await door(dir, config, now);
    expect(third.hardware.get()).toBe('off');
    expect(third.hold.current).toBeNull();
    expect(third.queue.pending().find((i) => i.kind === 'stop')).toMatchObject({
      sessionId: holdId,
      stopType: 'automatic',
      stoppedAt: until,
    });
  });

  it('does nothing for a machine', async () => {
    const dir = await tempDir(teardown);
    const { logger } = memoryLogger();
    const queue = new LogQueue({ dir, logger });
    await queue.start();
    teardown.add(() => queue.stop());
    const hardware = createRelay({ kind: 'simulated', stateFile: join(dir, 'relay.json') });
    const relay = new RelayController({
      relay: hardware,
      controlType: 'machine',
      queue,
      dataDir: dir,
      logger,
    });
    await relay.start();
    teardown.add(() => relay.stop());
    const config = new FakeConfig();
    config.set({ unlockUntil: new Date(Date.now() + 60_000).toISOString() });
    const hold = new DoorHoldFeature({ relay, config, queue, dataDir: dir, logger });
    await hold.start();
    teardown.add(() => hold.stop());
    expect(hardware.get()).toBe('off');
  });
});
