import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@makerspace/shared/agent';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../agent/src/agent.config.js';
import type { HubLink } from '../../agent/src/hub-link.js';
import type { RelayController } from '../../agent/src/relay.controller.js';
import { downloadUrl, EXIT_UPDATE_NOT_CONNECTED, UpdateFeature } from '../../agent/src/update.feature.js';
import { tempDir } from '../support/processes.js';

/** The hub link as the feature sees it: handlers, connect listeners, and what it publishes. */
function fakeLink() {
  const connect = new Set<() => void>();
  const published: { name: string; message: any }[] = [];
  let online = false;
  const link = {
    handle: () => {},
    onConnect: (listener: () => void) => {
      connect.add(listener);
      return () => connect.delete(listener);
    },
    publish: async (name: string, message: unknown) => {
      if (!online) throw new Error('not connected to the hub');
      published.push({ name, message });
    },
  };
  return {
    link: link as unknown as HubLink,
    published,
    connect() {
      online = true;
      for (const l of [...connect]) l();
    },
  };
}

function feature(version: string, marker?: object) {
  const dir = tempDir('update-');
  const dataDir = join(dir, 'data');
  mkdirSync(join(dataDir, 'releases'), { recursive: true });
  if (marker) writeFileSync(join(dataDir, 'releases/pending.json'), JSON.stringify(marker));
  const hub = fakeLink();
  const restarts: [number, string][] = [];
  const updates = new UpdateFeature({
    config: { dataDir, hub: 'mqtt://127.0.0.1:1883', controlType: 'machine' } as AgentConfig,
    apiKey: 'key',
    link: hub.link,
    relay: { state: () => ({ relay: 'off' }) } as unknown as RelayController,
    logger: createLogger({ name: 'test', level: 'silent' }),
    agentVersion: version,
    restart: (code, reason) => restarts.push([code, reason]),
  });
  return { updates, hub, restarts, dataDir };
}

const marker = (deadlineMs: number) => ({
  id: 'u1',
  version: '0.6.0',
  previous: '0.5.0',
  previousVersion: '0.5.0',
  deadline: new Date(Date.now() + deadlineMs).toISOString(),
  confirmSeconds: 60,
});

describe('the update feature across the restart', () => {
  it('a new version that connects confirms itself: marker gone, "connected" reaches the hub', async () => {
    const { updates, hub, restarts, dataDir } = feature('0.6.0', marker(60_000));
    await updates.start();
    hub.connect();
    await expect.poll(() => hub.published.length).toBe(1);
    expect(hub.published[0]).toMatchObject({
      name: 'update/progress',
      message: { id: 'u1', version: '0.6.0', step: 'connected', runningVersion: '0.6.0' },
    });
    expect(existsSync(join(dataDir, 'releases/pending.json'))).toBe(false);
    await expect.poll(() => existsSync(join(dataDir, 'releases/result.json'))).toBe(false);
    expect(restarts).toEqual([]);
    await updates.stop();
  });

  it('a new version that does not connect by the deadline exits for the launcher to roll back', async () => {
    const { updates, restarts, dataDir } = feature('0.6.0', marker(200));
    await updates.start();
    await expect.poll(() => restarts.length, { timeout: 3000 }).toBe(1);
    expect(restarts[0][0]).toBe(EXIT_UPDATE_NOT_CONNECTED);
    // The marker stays: it is the launcher's to act on.
    expect(existsSync(join(dataDir, 'releases/pending.json'))).toBe(true);
    await updates.stop();
  });

  it('the old version started again (not through the launcher) reports the update as failed, once connected', async () => {
    const { updates, hub, dataDir } = feature('0.5.0', marker(60_000));
    await updates.start();
    expect(existsSync(join(dataDir, 'releases/pending.json'))).toBe(false);
    // Not connected yet: the result waits in its file.
    expect(JSON.parse(readFileSync(join(dataDir, 'releases/result.json'), 'utf8')).step).toBe('failed');
    hub.connect();
    await expect.poll(() => hub.published.length).toBe(1);
    expect(hub.published[0].message).toMatchObject({ id: 'u1', step: 'failed', runningVersion: '0.5.0' });
    expect(hub.published[0].message.error).toContain('agent/bin/makerspace-agent.js');
    await expect.poll(() => existsSync(join(dataDir, 'releases/result.json'))).toBe(false);
    await updates.stop();
  });
});

describe('where the bundle is downloaded from', () => {
  const update = { url: 'http://localhost:8080/api/v1/bridge/agent-release' } as any;
  const config = (hub: string, hubUrl?: string) =>
    ({ hub, ...(hubUrl ? { updates: { hubUrl } } : {}) }) as AgentConfig;
  it('the config’s hubUrl, else the address of a ws(s) hub, else the message’s', () => {
    expect(downloadUrl(config('mqtt://hub.local:1883', 'https://hub.example/'), update)).toBe(
      'https://hub.example/api/v1/bridge/agent-release',
    );
    expect(downloadUrl(config('wss://hub.example/mqtt'), update)).toBe(
      'https://hub.example/api/v1/bridge/agent-release',
    );
    expect(downloadUrl(config('ws://10.0.0.2:8080/access/mqtt'), update)).toBe(
      'http://10.0.0.2:8080/access/api/v1/bridge/agent-release',
    );
    expect(downloadUrl(config('mqtt://hub.local:1883'), update)).toBe(update.url);
  });
});
