import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/processes.js';

const read = (path: string) => JSON.parse(readFileSync(`${repoRoot}${path}`, 'utf8'));

describe('one Node.js requirement that is true', () => {
  it('every package in the lockfile works on the oldest Node the project names (npm ci warns of none)', () => {
    const oldest = semver.minVersion(read('package.json').engines.node)?.version as string;
    expect(oldest).toBe('20.19.0');
    const lock = read('package-lock.json');
    const misfits = Object.entries<any>(lock.packages)
      .filter(([, p]) => p.engines?.node && !semver.satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${path}@${p.version} needs ${p.engines.node}`);
    expect(misfits).toEqual([]);
  });

  it('every workspace names the same requirement as the root', () => {
    const root = read('package.json');
    for (const ws of root.workspaces) {
      const pkg = read(`${ws}/package.json`);
      if (pkg.engines?.node) expect(pkg.engines.node, ws).toBe(root.engines.node);
    }
  });
});
