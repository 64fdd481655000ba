import { FeedbackFeature, IdleFeature, InputsFeature, LogQueue, RelayController } from '@makerspace/agent';
import {
  createInputs,
  type Input,
  InputConfig,
  InputState,
  type PowerMeter,
  type Relay,
  SimulatedRelay,
} from '@makerspace/hardware';
import type { BridgeConfig, InputsMessage } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger, Teardown, tempDir, waitFor } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

/** An input the test sets by hand. */
class HandInput implements Input {
  readonly description = 'input set by the test';
  private readonly state = new InputState();
  constructor(initial: boolean | null) {
    this.state.set(initial);
  }
  async open() {}
  async close() {}
  get() {
    return this.state.get();
  }
  onChange(listener: (active: boolean | null) => void) {
    return this.state.onChange(listener);
  }
  set(value: boolean | null) {
    this.state.set(value);
  }
}

/** A buzzer that records what it was switched to. */
function recordingOutput(): Relay & { switched: string[] } {
  let state: 'on' | 'off' = 'off';
  const switched: string[] = [];
  return {
    description: 'recording buzzer',
    switched,
    async open() {},
    async set(s) {
      state = s;
      switched.push(s);
    },
    get: () => state,
    async close() {},
  };
}

const base: BridgeConfig = {
  configVersion: 1,
  name: 'Laser',
  controlType: 'machine',
  pulseSeconds: 1,
  maxOfflineUsage: 0,
  offlineKeys: [],
  codeMode: 'static',
};

async function machine(config: Partial<BridgeConfig>, busyAtStart: boolean | null = true) {
  const dir = await tempDir(teardown);
  const { logger } = memoryLogger();
  const queue = new LogQueue({ dir, logger });
  const relay = new RelayController({
    relay: new SimulatedRelay({ stateFile: `${dir}/relay.json` }),
    controlType: 'machine',
    queue,
    dataDir: dir,
    logger,
  });
  const busy = new HandInput(busyAtStart);
  const lid = new HandInput(true);
  const reports: InputsMessage[] = [];
  const inputs = new InputsFeature({
    config: [
      InputConfig.parse({ name: 'busy', kind: 'busy' }),
      InputConfig.parse({ name: 'lid', kind: 'interlock', label: 'Lid' }),
    ],
    inputs: new Map<string, Input>([
      ['busy', busy],
      ['lid', lid],
    ]),
    relay,
    queue,
    report: (m) => reports.push(m),
    pulseSeconds: () => 1,
    logger,
  });
  const buzzer = recordingOutput();
  const feedback = new FeedbackFeature({ output: buzzer, logger, sleep: async () => {} });
  const bridgeConfig = { current: { ...base, ...config } as BridgeConfig, onChange: () => () => {} };
  const idle = new IdleFeature({ relay, inputs, config: bridgeConfig, feedback, logger });
  relay.setSessionHooks({
    refuseStart: () => (inputs.openInterlock() ? `the interlock "${inputs.openInterlock()}" is open` : null),
    deferMaxDuration: (s) => idle.deferMaxDuration(s),
    idleSeconds: (s, at) => idle.idleSeconds(s, at.getTime()),
  });
  for (const f of [queue, relay, feedback, inputs, idle]) {
    await f.start();
    teardown.add(() => f.stop());
  }
  const stops = () => queue.pending().filter((i) => i.kind === 'stop');
  return { relay, busy, lid, reports, buzzer, stops };
}

describe('idle and busy', () => {
  it('a busy machine runs its grace past maxDuration and is cut as soon as it is idle', async () => {
    const m = await machine({ busyGraceSeconds: 30 });
    await m.relay.startSession({ id: 's1', maxDuration: 0.2 });
    await new Promise((r) => setTimeout(r, 500));
    expect(m.relay.state().relay).toBe('on');
    m.busy.set(false);
    await waitFor(() => m.relay.state().relay === 'off', 'the cut once idle', 2_000);
    expect(m.stops()).toEqual([expect.objectContaining({ sessionId: 's1', stopType: 'automatic' })]);
  });

  it('the grace ends the session even while busy; without a grace maxDuration cuts a busy machine', async () => {
    const graced = await machine({ busyGraceSeconds: 1 });
    await graced.relay.startSession({ id: 's1', maxDuration: 0.2 });
    await new Promise((r) => setTimeout(r, 700));
    expect(graced.relay.state().relay).toBe('on');
    await waitFor(() => graced.relay.state().relay === 'off', 'the end of the grace', 2_000);

    const strict = await machine({});
    await strict.relay.startSession({ id: 's2', maxDuration: 0.2 });
    await waitFor(() => strict.relay.state().relay === 'off', 'maxDuration', 2_000);
    expect(strict.stops()).toEqual([expect.objectContaining({ sessionId: 's2', stopType: 'automatic' })]);
  });

  it('warns with the buzzer and the report, forgets the warning when busy again, and counts idle seconds', async () => {
    const m = await machine({ idleTimeoutSeconds: 1, idleWarningSeconds: 1 }, false);
    await m.relay.startSession({ id: 's1' });
    await waitFor(() => m.reports.at(-1)?.idleWarning?.sessionId === 's1', 'the warning', 2_000);
    // The warning pattern: three short beeps.
    await waitFor(() => m.buzzer.switched.length >= 7, 'the beeps', 1_000);
    // Off at start, then on-off three times.
    expect(m.buzzer.switched).toEqual(['off', 'on', 'off', 'on', 'off', 'on', 'off']);
    m.busy.set(true);
    expect(m.reports.at(-1)?.idleWarning).toBeNull();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(m.relay.state().relay).toBe('on');
    // An unknown busy state (a silent plug) is not idle either.
    m.busy.set(null);
    await new Promise((r) => setTimeout(r, 2_200));
    expect(m.relay.state().relay).toBe('on');
    await m.relay.endSession('s1', 'normal');
    const [stop] = m.stops();
    expect(stop).toMatchObject({ stopType: 'normal' });
    // Idle about 1 s at the start (until the warning), then busy and unknown: neither counts.
    const idleSeconds = (stop as { idleDurationSeconds: number }).idleDurationSeconds;
    expect(idleSeconds).toBeGreaterThanOrEqual(1);
    expect(idleSeconds).toBeLessThanOrEqual(2);
  });

  it('an open or unknown interlock refuses a session; one that opens ends it with stopType interlock', async () => {
    const m = await machine({});
    m.lid.set(false);
    await expect(m.relay.startSession({ id: 's1' })).rejects.toThrow('the interlock "Lid" is open');
    m.lid.set(null);
    await expect(m.relay.startSession({ id: 's1' })).rejects.toThrow('the interlock "Lid" is open');
    expect(m.relay.state().relay).toBe('off');
    m.lid.set(true);
    await m.relay.startSession({ id: 's2' });
    m.lid.set(false);
    await waitFor(() => m.relay.state().relay === 'off', 'the session ended by the interlock', 2_000);
    expect(m.stops()).toEqual([expect.objectContaining({ sessionId: 's2', stopType: 'interlock' })]);
    expect(m.reports.at(-1)?.inputs).toEqual([
      expect.objectContaining({ name: 'busy', kind: 'busy', label: 'busy', active: true }),
      expect.objectContaining({ name: 'lid', kind: 'interlock', label: 'Lid', active: false }),
    ]);
  });
});

/** A smart plug as the relay: it switches and measures the machine's power. */
class FakePlug implements Relay, PowerMeter {
  readonly description = 'fake smart plug';
  private state: 'on' | 'off' = 'off';
  private watts: number | null = null;
  private readonly listeners = new Set<(w: number | null) => void>();
  async open() {}
  async set(s: 'on' | 'off') {
    this.state = s;
    if (s === 'off') this.send(0);
  }
  get() {
    return this.state;
  }
  async close() {
    this.state = 'off';
  }
  onPower(listener: (w: number | null) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  lastPower() {
    return this.watts;
  }
  send(watts: number | null) {
    this.watts = watts;
    for (const l of this.listeners) l(watts);
  }
}

describe('busy from a smart plug power reading', () => {
  it('a machine drawing power is busy; below the threshold minus hysteresis it is idle and cut', async () => {
    const dir = await tempDir(teardown);
    const { logger } = memoryLogger();
    const plug = new FakePlug();
    const queue = new LogQueue({ dir, logger });
    const relay = new RelayController({ relay: plug, controlType: 'machine', queue, dataDir: dir, logger });
    const config = [
      InputConfig.parse({
        name: 'busy',
        kind: 'busy',
        source: { kind: 'power', thresholdWatts: 20, hysteresisWatts: 5 },
      }),
    ];
    const inputs = new InputsFeature({
      config,
      inputs: createInputs({ inputs: config, relay: plug, source: 'test' }),
      relay,
      queue,
      report: () => {},
      pulseSeconds: () => 1,
      logger,
    });
    const feedback = new FeedbackFeature({ output: null, logger });
    const bridgeConfig = {
      current: { ...base, idleTimeoutSeconds: 1, idleWarningSeconds: 1 } as BridgeConfig,
      onChange: () => () => {},
    };
    const idle = new IdleFeature({ relay, inputs, config: bridgeConfig, feedback, logger });
    relay.setSessionHooks({ idleSeconds: (s, at) => idle.idleSeconds(s, at.getTime()) });
    for (const f of [queue, relay, inputs, idle]) {
      await f.start();
      teardown.add(() => f.stop());
    }
    plug.send(150);
    await relay.startSession({ id: 's1' });
    // Drawing 150 W, then 17 W (above 20 - 5): busy throughout, past timeout and warning.
    await new Promise((r) => setTimeout(r, 1_200));
    plug.send(17);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(relay.state().relay).toBe('on');
    expect(inputs.busy()).toBe(true);
    // 3 W: idle; cut after the timeout and the warning.
    plug.send(3);
    expect(inputs.busy()).toBe(false);
    await waitFor(() => relay.state().relay === 'off', 'the idle switch-off', 4_000);
    const [stop] = queue.pending().filter((i) => i.kind === 'stop');
    expect(stop).toMatchObject({ sessionId: 's1', stopType: 'automatic' });
    // Idle for the timeout and the warning (timers may run late on a busy machine).
    const idleSeconds = (stop as { idleDurationSeconds: number }).idleDurationSeconds;
    expect(idleSeconds).toBeGreaterThanOrEqual(2);
    expect(idleSeconds).toBeLessThanOrEqual(3);
  });
});
