import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, extract } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import {
  agentCli,
  type Proc,
  repoRoot,
  runProcess,
  startProcess,
  stopAll,
  tempDir,
} from '../support/processes.js';

/** The launcher the systemd unit starts (it picks the release that runs, and rolls back). */
const launcher = join(repoRoot, 'agent/bin/makerspace-agent.js');
const builtVersion = JSON.parse(readFileSync(join(repoRoot, 'agent/package.json'), 'utf8')).version as string;
const builtBundle = join(repoRoot, `agent/dist-release/makerspace-agent-${builtVersion}.tgz`);

/**
 * A release made from the bundle `npm run build` left: the same code under a higher version
 * number, changed by `patch` (a file path relative to the bundle and a rewrite of its text).
 */
async function makeRelease(
  dir: string,
  version: string,
  patch?: { file: string; change: (text: string) => string },
): Promise<void> {
  const work = tempDir('release-');
  await extract({ file: builtBundle, cwd: work });
  for (const file of ['release.json', 'agent/package.json']) {
    const json = JSON.parse(readFileSync(join(work, file), 'utf8'));
    writeFileSync(join(work, file), JSON.stringify({ ...json, version }, null, 2));
  }
  if (patch) {
    const path = join(work, patch.file);
    const before = readFileSync(path, 'utf8');
    const after = patch.change(before);
    expect(after, `the patch changes ${patch.file}`).not.toBe(before);
    writeFileSync(path, after);
  }
  await create(
    { file: join(dir, `makerspace-agent-${version}.tgz`), cwd: work, gzip: true, portable: true },
    readdirSync(work),
  );
}

/**
 * What systemd's Restart=always does for the unit: the agent runs through its launcher, and
 * whenever it exits it is started again (after RestartSec, here 300 ms).
 */
function supervise(configFile: string) {
  let current: Proc | null = null;
  let stopped = false;
  let output = '';
  const exits: (number | null)[] = [];
  const start = () => {
    const proc = startProcess([launcher, 'run', '--config', configFile], { LOG_LEVEL: 'info' });
    current = proc;
    proc.child.on('exit', (code) => {
      output += proc.output();
      exits.push(code);
      if (!stopped) setTimeout(start, 300);
    });
  };
  start();
  return {
    exits,
    output: () => output + (current?.output() ?? ''),
    async stop() {
      stopped = true;
      await current?.stop();
    },
  };
}

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
    const code = (await hub.api('POST', `/resources/${machine.id}/bridge/pairing-codes`)).body.code;
    agentDir = tempDir('agent-');
    const paired = await runProcess(
      [
        agentCli,
        'pair',
        `http://127.0.0.1:${hub.httpPort}`,
        code,
        '--dir',
        agentDir,
        '--data-dir',
        join(agentDir, 'data'),
      ],
      {},
    );
    expect(paired.code, paired.stderr).toBe(0);
    const configFile = join(agentDir, 'config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    // A short confirmation window keeps the rollback test short (the default is 60 s).
    writeFileSync(
      configFile,
      JSON.stringify({ ...config, keepaliveSeconds: 2, updates: { confirmSeconds: 8 } }),
    );
    agent = supervise(configFile);
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

  it('installs a newer release: the agent restarts and comes back on the new version', async () => {
    await makeRelease(releaseDir, '0.9.0');
    const before = await updates();
    expect(before).toMatchObject({ agentVersion: builtVersion, updateAvailable: true, update: null });

    const started = await hub.api('POST', `/resources/${machine.id}/bridge/agent-update`);
    expect(started.status).toBe(202);
    expect(started.body.update).toMatchObject({
      version: '0.9.0',
      fromVersion: builtVersion,
      step: 'requested',
    });

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

  it('rolls back a release that does not connect within the limit, and says why', async () => {
    // A release whose hub link is broken: it dials a port where no hub listens.
    await makeRelease(releaseDir, '0.9.1', {
      file: 'agent/dist/hub-link.js',
      change: (text) =>
        text.replace('mqtt.connect(this.options.url,', "mqtt.connect('ws://127.0.0.1:9/mqtt',"),
    });
    const started = await hub.api('POST', '/agent-updates', {});
    expect(started.body).toEqual({
      version: '0.9.1',
      bridges: [{ resource: machine.id, outcome: 'started' }],
    });

    await eventually(async () => (await updates())?.update?.step === 'rolledBack', 45_000, 'rolled back');
    const after = await updates();
    expect(after.update.version).toBe('0.9.1');
    expect(after.update.error).toContain('did not connect to the hub within 8 s');
    expect(after).toMatchObject({ online: true, agentVersion: '0.9.0' });
    expect(readlinkSync(join(agentDir, 'data/releases/current'))).toBe('0.9.0');
    // 0.9.0 exited for the update (0); 0.9.1 gave up on connecting (3), then the launcher went back.
    expect(agent.exits).toEqual([0, 0, 3]);
    expect(agent.output()).toContain('did not connect to the hub within 8 s; rolled back to 0.9.0');
  }, 90_000);
});
