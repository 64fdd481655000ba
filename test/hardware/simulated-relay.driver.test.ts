import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HardwareError, SimulatedRelay, createRelay } from '@makerspace/hardware';
import { describe, expect, it } from 'vitest';
import { useTeardown } from './helpers/teardown.js';

const defer = useTeardown();

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'makerspace-relay-'));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const readState = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('simulated relay', () => {
  it('creates the directory and writes off with the time on open, even over a stale "on"', async () => {
    const dir = tempDir();
    const file = join(dir, 'run', 'makerspace-agent', 'relay.json');
    const relay = new SimulatedRelay({ stateFile: file, now: () => new Date('2025-03-01T10:00:00Z') });
    defer(() => relay.close());
    await relay.open();
    expect(readState(file)).toEqual({ relay: 'off', since: '2025-03-01T10:00:00.000Z' });

    writeFileSync(file, JSON.stringify({ relay: 'on', since: '2025-01-01T00:00:00Z' }));
    const again = new SimulatedRelay({ stateFile: file, now: () => new Date('2025-03-01T11:00:00Z') });
    defer(() => again.close());
    await again.open();
    expect(readState(file)).toEqual({ relay: 'off', since: '2025-03-01T11:00:00.000Z' });
  });

  it('records each change with the time it happened, and off on close', async () => {
    const dir = tempDir();
    const file = join(dir, 'relay.json');
    let now = new Date('2025-03-01T10:00:00Z');
    const relay = new SimulatedRelay({ stateFile: file, now: () => now });
    defer(() => relay.close());
    await relay.open();

    now = new Date('2025-03-01T10:00:05Z');
    await relay.set('on');
    expect(relay.get()).toBe('on');
    expect(readState(file)).toEqual({ relay: 'on', since: '2025-03-01T10:00:05.000Z' });

    // Same state again: not a change, so `since` stays.
    now = new Date('2025-03-01T10:00:07Z');
    await relay.set('on');
    expect(readState(file).since).toBe('2025-03-01T10:00:05.000Z');

    now = new Date('2025-03-01T10:00:10Z');
    await relay.close();
    expect(readState(file)).toEqual({ relay: 'off', since: '2025-03-01T10:00:10.000Z' });
    expect(relay.get()).toBe('off');
    // Written by rename: no temp files are left behind.
    expect(readdirSync(dir)).toEqual(['relay.json']);
  });

  it('a reader polling the file never sees a partial write', async () => {
    const dir = tempDir();
    const file = join(dir, 'relay.json');
    const relay = new SimulatedRelay({ stateFile: file });
    defer(() => relay.close());
    await relay.open();
    const switching = (async () => {
      for (let i = 0; i < 100; i++) await relay.set(i % 2 === 0 ? 'on' : 'off');
    })();
    let reads = 0;
    let done = false;
    void switching.then(() => {
      done = true;
    });
    while (!done) {
      expect(['on', 'off']).toContain(readState(file).relay);
      reads++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await switching;
    expect(reads).toBeGreaterThan(0);
  });

  it('explains when the state file cannot be written', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'not-a-dir'), '');
    const relay = createRelay({ kind: 'simulated', stateFile: join(dir, 'not-a-dir', 'relay.json') });
    const error = await relay.open().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(HardwareError);
    expect((error as HardwareError).code).toBe('state-file');
    expect((error as Error).message).toContain(join(dir, 'not-a-dir'));
  });

  it('refuses to switch before open', async () => {
    const relay = new SimulatedRelay({ stateFile: join(tempDir(), 'relay.json') });
    await expect(relay.set('on')).rejects.toThrow(/before open/);
  });
});
