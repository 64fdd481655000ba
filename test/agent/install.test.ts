import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What `npm ci --workspace @makerspace/agent` installs on a Pi, read from the lockfile: the
// agent's dependency closure must need no C++ compiler (only optional packages may build from
// source) and must not pull in the hub's packages (DESIGN section 2).

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface LockEntry {
  link?: boolean;
  resolved?: string;
  optional?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Node's resolution over lockfile paths: `from/node_modules/name`, then each parent's. */
function resolveIn(from: string, name: string): string {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry) return entry.link && entry.resolved ? entry.resolved : candidate;
    if (!dir) throw new Error(`${name} (needed by ${from || 'the root'}) is not in the lockfile`);
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut >= 0 ? dir.slice(0, cut) : '';
  }
}

/** Every lockfile path the workspace needs, each with whether only optional edges reach it. */
function closure(workspace: string): Map<string, { optionalOnly: boolean }> {
  const seen = new Map<string, { optionalOnly: boolean }>();
  const visit = (path: string, optionalOnly: boolean) => {
    const known = seen.get(path);
    if (known && (known.optionalOnly === optionalOnly || !known.optionalOnly)) return;
    seen.set(path, { optionalOnly });
    const entry = lock.packages[path];
    for (const name of Object.keys(entry?.dependencies ?? {})) visit(resolveIn(path, name), optionalOnly);
    for (const name of Object.keys(entry?.optionalDependencies ?? {})) visit(resolveIn(path, name), true);
  };
  visit(workspace, false);
  return seen;
}

const agent = closure('agent');

describe('installing the agent on a Raspberry Pi', () => {
  it('builds nothing from source unless it is optional: native modules ship arm and arm64 binaries', () => {
    const native = [...agent.entries()].filter(([path]) => lock.packages[path]?.hasInstallScript);
    expect(native.length).toBeGreaterThan(0);
    for (const [path, { optionalOnly }] of native) {
      if (optionalOnly) continue;
      const prebuilds = join(root, path, 'prebuilds');
      expect(existsSync(join(prebuilds, 'linux-arm')), `${path} has no prebuilt linux-arm binary`).toBe(true);
      expect(existsSync(join(prebuilds, 'linux-arm64')), `${path} has no prebuilt linux-arm64 binary`).toBe(
        true,
      );
    }
  });

  it('onoff and its addon epoll are optional: a serial relay board or the simulator needs no compiler', () => {
    expect(agent.get('node_modules/onoff')).toEqual({ optionalOnly: true });
    expect(agent.get('node_modules/epoll')).toEqual({ optionalOnly: true });
    expect(agent.get('node_modules/serialport')).toEqual({ optionalOnly: false });
  });

  it("pulls in none of the hub's packages", () => {
    for (const hubOnly of ['better-sqlite3', 'fastify', 'aedes', 'kysely', 'pg', '@node-rs/argon2']) {
      expect(agent.has(`node_modules/${hubOnly}`), hubOnly).toBe(false);
    }
  });
});
