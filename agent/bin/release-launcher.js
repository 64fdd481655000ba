// Chooses which agent release runs (docs/OPERATIONS.md, "Updating agents"). Plain JavaScript
// without dependencies: it runs before any agent code is loaded, from the installation the
// systemd unit names, and agent updates never change it.
//
// In `<dataDir>/releases/` (agent/src/releases.ts writes these files):
//   current       symlink to the release to run; absent or broken: this installation's build
//   pending.json  an update whose new version has not yet connected to the hub; past its
//                 deadline, `run` goes back to the previous release before starting anything
//   result.json   written here on a rollback, so the previous version tells the hub why
import {
  existsSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This installation's own build. */
export const ownCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The config file of the command line (--config FILE, -c FILE, --config=FILE) or AGENT_CONFIG. */
export function configFileOf(argv, env) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if ((arg === '--config' || arg === '-c') && i + 1 < argv.length) return argv[i + 1];
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return env.AGENT_CONFIG ?? null;
}

function dataDirOf(argv, env) {
  const file = configFileOf(argv, env);
  if (!file) return null;
  try {
    const config = JSON.parse(readFileSync(file, 'utf8'));
    return typeof config.dataDir === 'string' && config.dataDir ? resolve(config.dataDir) : null;
  } catch {
    // The agent itself reports a config it cannot read, with every problem and its path.
    return null;
  }
}

function switchCurrent(releases, target) {
  const link = join(releases, 'current');
  if (target === null) {
    try {
      unlinkSync(link);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    return;
  }
  const next = join(releases, 'current.next');
  rmSync(next, { force: true });
  symlinkSync(target, next);
  renameSync(next, link);
}

/**
 * A pending update past its deadline: its version never connected (it exited, crashed or hung).
 * `current` goes back to what it was, and the reason waits in result.json for the hub.
 */
export function rollBackIfOverdue(releases, now, log) {
  const markerFile = join(releases, 'pending.json');
  let marker;
  try {
    marker = JSON.parse(readFileSync(markerFile, 'utf8'));
  } catch {
    return false;
  }
  const deadline = Date.parse(marker.deadline);
  if (now <= deadline) return false;
  const back = marker.previousVersion ?? 'the previous version';
  switchCurrent(releases, marker.previous ?? null);
  const result = {
    id: String(marker.id),
    version: String(marker.version),
    step: 'rolledBack',
    runningVersion: String(back),
    error: `version ${marker.version} did not connect to the hub within ${marker.confirmSeconds ?? 60} s; rolled back to ${back}`,
    at: new Date(now).toISOString(),
  };
  writeFileSync(join(releases, 'result.json.next'), `${JSON.stringify(result)}\n`, { mode: 0o600 });
  renameSync(join(releases, 'result.json.next'), join(releases, 'result.json'));
  unlinkSync(markerFile);
  log(`makerspace-agent: ${result.error}\n`);
  return true;
}

/** The file URL of the cli.js to run for this command line. */
export function chooseCli(argv, env, now = Date.now(), log = (line) => process.stderr.write(line)) {
  const dataDir = dataDirOf(argv, env);
  if (!dataDir) return pathToFileURL(ownCli).href;
  const releases = join(dataDir, 'releases');
  if (argv[0] === 'run') {
    try {
      rollBackIfOverdue(releases, now, log);
    } catch (err) {
      log(`makerspace-agent: rolling back an update failed: ${err.message}\n`);
    }
  }
  let target = null;
  try {
    target = resolve(releases, readlinkSync(join(releases, 'current')));
  } catch {
    target = null;
  }
  const cli = target && join(target, 'agent/dist/cli.js');
  return pathToFileURL(cli && existsSync(cli) ? cli : ownCli).href;
}
