import { beep, type Relay, type RelayState } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';

/** A buzzer that records what happened, in order, with the sleeps between. */
function recordingBuzzer(failOnSecondOn = false) {
  const events: string[] = [];
  let state: RelayState = 'off';
  let ons = 0;
  const relay: Relay = {
    description: 'test buzzer',
    open: async () => {},
    close: async () => {},
    get: () => state,
    set: async (next) => {
      if (next === 'on' && ++ons === 2 && failOnSecondOn) throw new Error('buzzer unplugged');
      state = next;
      events.push(next);
    },
  };
  const sleep = async (ms: number) => {
    events.push(`${ms}ms`);
  };
  return { relay, events, sleep };
}

describe('beep', () => {
  it('allowed is a short beep and denied a long one, each ending off', async () => {
    const allowed = recordingBuzzer();
    await beep(allowed.relay, 'allowed', allowed.sleep);
    const denied = recordingBuzzer();
    await beep(denied.relay, 'denied', denied.sleep);
    expect(allowed.events).toEqual(['on', '150ms', 'off']);
    expect(denied.events).toEqual(['on', '800ms', 'off']);
  });

  it('plays a custom on/off pattern', async () => {
    const buzzer = recordingBuzzer();
    await beep(buzzer.relay, [100, 50, 100], buzzer.sleep);
    expect(buzzer.events).toEqual(['on', '100ms', 'off', '50ms', 'on', '100ms', 'off']);
  });

  it('leaves the buzzer off when switching fails half way', async () => {
    const buzzer = recordingBuzzer(true);
    await expect(beep(buzzer.relay, [100, 50, 100], buzzer.sleep)).rejects.toThrow(/unplugged/);
    expect(buzzer.relay.get()).toBe('off');
  });

  it('rejects nonsense patterns before touching the output', async () => {
    const buzzer = recordingBuzzer();
    await expect(beep(buzzer.relay, [100, -1], buzzer.sleep)).rejects.toThrow(/non-negative/);
    await expect(beep(buzzer.relay, 'maybe' as 'allowed', buzzer.sleep)).rejects.toThrow(
      /"allowed", "denied"/,
    );
    expect(buzzer.events).toEqual([]);
  });

  it('waits for real time by default', async () => {
    const buzzer = recordingBuzzer();
    const started = Date.now();
    await beep(buzzer.relay, [30]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(buzzer.events).toEqual(['on', 'off']);
  });
});
