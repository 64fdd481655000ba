import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtVersion, makeRelease, pairAndSupervise, type supervise } from '../support/agent-releases.js';
import { type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll, tempDir } from '../support/processes.js';

describe('agent updates: a real hub and an agent under a supervisor, as systemd runs it', () => {
  let hub: HubProcess;
  let releaseDir: string;
  let machine: { id: number };
  let agentDir: string;
  let agent: ReturnType<typeof supervise>;

  const updates = async () =>
    ((await hub.api('GET', '/agent-updates')).body as any[]).find((u) => u.resource === machine.id);

  beforeAll(async () => {
    releaseDir = tempDir('releases-');
    hub = await startHubProcess({ env: { HUB_AGENT_RELEASE_DIR: releaseDir } });
    const space = (await hub.api('GET', '/user/me')).body.space;
    machine = (await hub.api('POST', '/resources', { space, name: 'Laser', controlType: 'machine' })).body;
    // Paired as an operator would: the pairing hands over the bridge key and the hub's release key.
    // A short confirmation window keeps the rollback test short (the default is 60 s).
    ({ dir: agentDir, agent } = await pairAndSupervise(hub, machine.id, 15));
    await eventually(async () => (await updates())?.online === true, 15_000, 'agent online');
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await stopAll();
  });

  it('the pairing stored the hub’s release key, which the hub shows admins', async () => {
    const info = (await hub.api('GET', '/agent-release')).body;
    expect(info.available).toBe(false);
    expect(readFileSync(join(agentDir, 'data/release-key.pem'), 'utf8')).toBe(info.publicKey);
    const refused = await hub.api('POST', `/resources/${machine.id}/bridge/agent-update`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('no agent release');
  });

  it('installs a newer release once the machine is off: the agent restarts and comes back on the new version', async () => {
    await makeRelease(releaseDir, '0.9.0');
    const before = await updates();
    expect(before).toMatchObject({ agentVersion: builtVersion, updateAvailable: true, update: null });
    // The machine runs: the update must not cut it.
    const code = (await hub.api('GET', `/resources/${machine.id}`)).body.switchOnCode;
    expect((await hub.api('POST', `/resources/${machine.id}/switch-on`, { code })).status).toBe(200);
    const relay = () => JSON.parse(readFileSync(join(agentDir, 'data/relay.json'), 'utf8')).relay;
    expect(relay()).toBe('on');

    const started = await hub.api('POST', `/resources/${machine.id}/bridge/agent-update`);
    expect(started.status).toBe(202);
    expect(started.body.update).toMatchObject({
      version: '0.9.0',
      fromVersion: builtVersion,
      step: 'requested',
    });
    await eventually(async () => (await updates())?.update?.step === 'waitingForIdle', 15_000, 'waiting');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(relay()).toBe('on');
    expect(agent.exits).toEqual([]);
    expect((await hub.api('POST', `/resources/${machine.id}/bridge/switch-off`, {})).status).toBe(201);

    await eventually(async () => (await updates())?.update?.step === 'connected', 30_000, 'update connected');
    const after = await updates();
    expect(after).toMatchObject({ online: true, agentVersion: '0.9.0', updateAvailable: false });
    expect(after.update.error).toBeNull();
    expect(readlinkSync(join(agentDir, 'data/releases/current'))).toBe('0.9.0');
    // The restart was a clean exit, for systemd to start the new version.
    expect(agent.exits).toEqual([0]);
    expect(agent.output()).toContain('update confirmed: connected to the hub on the new version');

    // Nothing newer to install: the hub says so, and an update for all starts none.
    expect((await hub.api('POST', `/resources/${machine.id}/bridge/agent-update`)).status).toBe(409);
    const all = await hub.api('POST', '/agent-updates', {});
    expect(all.status).toBe(202);
    expect(all.body.bridges).toEqual([{ resource: machine.id, outcome: 'upToDate' }]);
  }, 60_000);

  it('an agent without the hub’s release key (paired before updates, or set up by hand) refuses and says so', async () => {
    const space = (await hub.api('GET', '/user/me')).body.space;
    const door = (await hub.api('POST', '/resources', { space, name: 'Door', controlType: 'door' })).body;
    await hub.api('PUT', `/resources/${door.id}/bridge`, {});
    const apiKey = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    const old = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: door.id,
      apiKey,
      controlType: 'door',
    });
    const doorUpdate = async () =>
      ((await hub.api('GET', '/agent-updates')).body as any[]).find((u) => u.resource === door.id);
    await eventually(async () => (await doorUpdate())?.agentVersion === builtVersion, 10_000, 'door online');
    expect((await hub.api('POST', `/resources/${door.id}/bridge/agent-update`)).status).toBe(202);
    await eventually(async () => (await doorUpdate())?.update?.step === 'failed', 15_000, 'refused');
    expect((await doorUpdate()).update.error).toContain('no release key from pairing');
    // Nothing changed on it: same version, still connected, nothing installed.
    expect(await doorUpdate()).toMatchObject({ online: true, agentVersion: builtVersion });
    expect(existsSync(join(old.dir, 'data/releases/current'))).toBe(false);
    await old.proc.stop();
  });

  it('rolls back a release that does not connect within the limit, and says why', async () => {
    // A release whose hub link is broken: it dials a port where no hub listens.
    await makeRelease(releaseDir, '0.9.1', {
      file: 'agent/dist/hub-link.js',
      change: (text) =>
        text.replace('mqtt.connect(this.options.url,', "mqtt.connect('ws://127.0.0.1:9/mqtt',"),
    });
    const started = await hub.api('POST', '/agent-updates', {});
    // For all: the door's agent of the test before is gone, so only the laser's starts.
    expect(started.body.version).toBe('0.9.1');
    expect(started.body.bridges).toContainEqual({ resource: machine.id, outcome: 'started' });
    expect(started.body.bridges.filter((b: any) => b.outcome === 'started')).toHaveLength(1);

    await eventually(async () => (await updates())?.update?.step === 'rolledBack', 45_000, 'rolled back');
    const after = await updates();
    expect(after.update.version).toBe('0.9.1');
    expect(after.update.error).toContain('did not connect to the hub within 15 s');
    expect(after).toMatchObject({ online: true, agentVersion: '0.9.0' });
    expect(readlinkSync(join(agentDir, 'data/releases/current'))).toBe('0.9.0');
    // 0.9.0 exited for the update (0); 0.9.1 gave up on connecting (3), then the launcher went back.
    expect(agent.exits).toEqual([0, 0, 3]);
    expect(agent.output()).toContain('did not connect to the hub within 15 s; rolled back to 0.9.0');
  }, 90_000);
});
