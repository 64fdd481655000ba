import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript without types: the launcher runs before any agent code.
import { chooseCli, ownCli } from '../../agent/bin/release-launcher.js';
import { tempDir } from '../support/processes.js';

/** An agent config and data dir, with releases made as the update feature makes them. */
function setUp() {
  const dir = tempDir('launcher-');
  const dataDir = join(dir, 'data');
  const releases = join(dataDir, 'releases');
  mkdirSync(releases, { recursive: true });
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ dataDir }));
  const release = (version: string) => {
    mkdirSync(join(releases, version, 'agent/dist'), { recursive: true });
    writeFileSync(join(releases, version, 'agent/dist/cli.js'), '');
    return pathToFileURL(join(releases, version, 'agent/dist/cli.js')).href;
  };
  const lines: string[] = [];
  const choose = (argv: string[], now = Date.now()) =>
    chooseCli(argv, {}, now, (line: string) => lines.push(line)) as string;
  return { dir, dataDir, releases, configFile, release, choose, lines };
}

const own = pathToFileURL(ownCli).href;

describe('the launcher: which release runs, and the rollback', () => {
  it('runs its own build without a config, without releases, or when current is broken', () => {
    const s = setUp();
    expect(chooseCli(['--help'], {})).toBe(own);
    expect(s.choose(['run', '--config', s.configFile])).toBe(own);
    symlinkSync('0.5.0', join(s.releases, 'current'));
    expect(s.choose(['run', '--config', s.configFile])).toBe(own);
  });

  it('runs the release current names, whatever the command, with the config from --config, -c, --config= or AGENT_CONFIG', () => {
    const s = setUp();
    const cli = s.release('0.5.0');
    symlinkSync('0.5.0', join(s.releases, 'current'));
    expect(s.choose(['run', '--config', s.configFile])).toBe(cli);
    expect(s.choose(['tap', '-c', s.configFile, '--token', 'AB'])).toBe(cli);
    expect(s.choose([`--config=${s.configFile}`, 'run'])).toBe(cli);
    expect(chooseCli(['run'], { AGENT_CONFIG: s.configFile })).toBe(cli);
  });

  it('leaves a pending update alone until its deadline', () => {
    const s = setUp();
    const cli = s.release('0.6.0');
    s.release('0.5.0');
    symlinkSync('0.6.0', join(s.releases, 'current'));
    const deadline = Date.now() + 60_000;
    const marker = {
      id: 'u1',
      version: '0.6.0',
      previous: '0.5.0',
      previousVersion: '0.5.0',
      deadline: new Date(deadline).toISOString(),
      confirmSeconds: 60,
    };
    writeFileSync(join(s.releases, 'pending.json'), JSON.stringify(marker));
    expect(s.choose(['run', '--config', s.configFile], deadline)).toBe(cli);
    expect(existsSync(join(s.releases, 'pending.json'))).toBe(true);
    expect(s.lines).toEqual([]);
  });

  it('past the deadline, run goes back to the previous release and leaves the reason for the hub', () => {
    const s = setUp();
    s.release('0.6.0');
    const previous = s.release('0.5.0');
    symlinkSync('0.6.0', join(s.releases, 'current'));
    const deadline = Date.now();
    writeFileSync(
      join(s.releases, 'pending.json'),
      JSON.stringify({
        id: 'u1',
        version: '0.6.0',
        previous: '0.5.0',
        previousVersion: '0.5.0',
        deadline: new Date(deadline).toISOString(),
        confirmSeconds: 60,
      }),
    );
    // Other commands (a card tap) never roll back.
    expect(s.choose(['tap', '--config', s.configFile], deadline + 1)).not.toBe(previous);
    expect(s.choose(['run', '--config', s.configFile], deadline + 1)).toBe(previous);
    expect(readlinkSync(join(s.releases, 'current'))).toBe('0.5.0');
    expect(existsSync(join(s.releases, 'pending.json'))).toBe(false);
    const result = JSON.parse(readFileSync(join(s.releases, 'result.json'), 'utf8'));
    expect(result).toMatchObject({
      id: 'u1',
      version: '0.6.0',
      step: 'rolledBack',
      runningVersion: '0.5.0',
      error: 'version 0.6.0 did not connect to the hub within 60 s; rolled back to 0.5.0',
    });
    expect(s.lines.join('')).toContain('rolled back to 0.5.0');
  });

  it('an update from the installation itself rolls back to it: current is removed', () => {
    const s = setUp();
    s.release('0.6.0');
    symlinkSync('0.6.0', join(s.releases, 'current'));
    writeFileSync(
      join(s.releases, 'pending.json'),
      JSON.stringify({
        id: 'u2',
        version: '0.6.0',
        previous: null,
        previousVersion: '0.1.0',
        deadline: new Date(0).toISOString(),
        confirmSeconds: 60,
      }),
    );
    expect(s.choose(['run', '--config', s.configFile])).toBe(own);
    expect(existsSync(join(s.releases, 'current'))).toBe(false);
  });
});
