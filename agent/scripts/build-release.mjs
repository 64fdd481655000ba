#!/usr/bin/env node
// Builds the agent's release bundle (docs/OPERATIONS.md, "Updating agents"):
// agent/dist-release/makerspace-agent-<version>.tgz, which the hub signs and serves to its agents.
//
// The bundle carries our own packages only (agent, hardware, shared: package.json and the built
// JavaScript, plus node_modules/@makerspace links between them) and release.json, which names the
// third-party dependencies it was built against. The Pi keeps its installed third-party modules;
// an agent refuses a release whose dependencies those modules do not satisfy.
//
// Run after `tsc -b` (npm run build does). Usage: node agent/scripts/build-release.mjs [OUT_DIR]
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create } from 'tar';

const root = fileURLToPath(new URL('../../', import.meta.url));
const outDir = process.argv[2] ?? join(root, 'agent/dist-release');
const packages = ['shared', 'hardware', 'agent'];

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const agentPackage = readJson(join(root, 'agent/package.json'));
const version = agentPackage.version;

/** Third-party dependencies of the three packages: name -> {range, optional}. */
function thirdPartyDependencies() {
  const deps = {};
  for (const name of packages) {
    const pkg = readJson(join(root, name, 'package.json'));
    for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
      if (!deps[dep]) deps[dep] = { range, optional: true };
    }
    for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
      if (!dep.startsWith('@makerspace/')) deps[dep] = { range, optional: false };
    }
  }
  return Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
}

/** The files of a built package: its package.json, bin/ (the agent) and dist/*.js (no maps or types). */
function packageFiles(name) {
  if (!existsSync(join(root, name, 'dist'))) throw new Error(`${name}/dist is missing: run tsc -b first`);
  const files = [`${name}/package.json`];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) files.push(path);
    }
  };
  walk(`${name}/dist`);
  if (name === 'agent') walk('agent/bin');
  return files;
}

const stage = join(tmpdir(), `makerspace-release-${process.pid}`);
rmSync(stage, { recursive: true, force: true });
try {
  const files = packages.flatMap(packageFiles);
  for (const path of files) {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    copyFileSync(join(root, path), join(stage, path));
  }
  mkdirSync(join(stage, 'node_modules/@makerspace'), { recursive: true });
  for (const name of packages) {
    symlinkSync(`../../${name}`, join(stage, 'node_modules/@makerspace', name));
    files.push(`node_modules/@makerspace/${name}`);
  }
  const manifest = {
    name: 'makerspace-agent',
    version,
    node: agentPackage.engines?.node ?? null,
    dependencies: thirdPartyDependencies(),
  };
  writeFileSync(join(stage, 'release.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  files.push('release.json');

  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `makerspace-agent-${version}.tgz`);
  // Fixed times, no owners, sorted names: the same build gives the same bundle, byte for byte.
  await create(
    {
      file: `${file}.tmp`,
      cwd: stage,
      gzip: { level: 9 },
      portable: true,
      noDirRecurse: true,
      mtime: new Date('2000-01-01T00:00:00Z'),
    },
    files.sort(),
  );
  renameSync(`${file}.tmp`, file);
  process.stdout.write(`agent release bundle: ${relative(root, file)} (${statSync(file).size} bytes)\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
