import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, extract } from 'tar';
import { expect } from 'vitest';
import { agentCli, type Proc, repoRoot, runProcess, startProcess, tempDir } from './processes.js';

/** The launcher the systemd unit starts (it picks the release that runs, and rolls back). */
export const launcher = join(repoRoot, 'agent/bin/makerspace-agent.js');
export const builtVersion = JSON.parse(readFileSync(join(repoRoot, 'agent/package.json'), 'utf8'))
  .version as string;
const builtBundle = join(repoRoot, `agent/dist-release/makerspace-agent-${builtVersion}.tgz`);

/**
 * A release made from the bundle `npm run build` left: the same code under a higher version
 * number, changed by `patch` (a file path relative to the bundle and a rewrite of its text).
 */
export async function makeRelease(
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

/** The Node flags of the agent's systemd unit (its ExecStart, up to the launcher). */
export function unitNodeFlags(): string[] {
  const unit = readFileSync(join(repoRoot, 'systemd/makerspace-agent.service'), 'utf8');
  const exec = /^ExecStart=\/usr\/bin\/env node (.*?) \S+makerspace-agent\.js /m.exec(unit);
  if (!exec) throw new Error('ExecStart of the agent unit not found');
  return exec[1].split(' ');
}

/**
 * What systemd does for the unit: the agent runs through its launcher with the unit's Node flags
 * (lite mode: no WebAssembly, so no fetch), and whenever it exits it is started again
 * (Restart=always; after RestartSec, here 300 ms).
 */
export function supervise(configFile: string) {
  let current: Proc | null = null;
  let stopped = false;
  let output = '';
  const exits: (number | null)[] = [];
  const flags = unitNodeFlags();
  const start = () => {
    const proc = startProcess([...flags, launcher, 'run', '--config', configFile], { LOG_LEVEL: 'info' });
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

/**
 * Pairs a new agent with the resource through `makerspace-agent pair` (which stores the bridge key
 * and the hub's release key) and starts it under supervise(); `confirmSeconds` shortens the
 * window a new version has to connect.
 */
export async function pairAndSupervise(
  hub: { httpPort: number; api(method: string, path: string): Promise<{ body: any }> },
  resourceId: number,
  confirmSeconds: number,
): Promise<{ dir: string; agent: ReturnType<typeof supervise> }> {
  const code = (await hub.api('POST', `/resources/${resourceId}/bridge/pairing-codes`)).body.code;
  const dir = tempDir('agent-');
  const paired = await runProcess(
    [
      agentCli,
      'pair',
      `http://127.0.0.1:${hub.httpPort}`,
      code,
      '--dir',
      dir,
      '--data-dir',
      join(dir, 'data'),
    ],
    {},
  );
  expect(paired.code, paired.stderr).toBe(0);
  const configFile = join(dir, 'config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  writeFileSync(configFile, JSON.stringify({ ...config, keepaliveSeconds: 2, updates: { confirmSeconds } }));
  return { dir, agent: supervise(configFile) };
}
