import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UpdateRequest, UpdateStep } from '@makerspace/shared/agent';
import semver from 'semver';
import { extract } from 'tar';
import { checkRelease, ReleaseRefused, type ReleaseManifest, unmetDependencies } from './release-check.js';
import { currentTarget, releaseKeyFile, releasesDir } from './releases.js';

/*
 * Downloads, checks and unpacks a release beside the running one (loaded only when an update
 * comes: tar and semver cost the running agent nothing until then).
 */

export interface InstallOptions {
  dataDir: string;
  apiKey: string;
  /** Where the bundle is downloaded from. */
  url: string;
  update: UpdateRequest;
  runningVersion: string;
  /** The installation's third-party modules, which every release shares. */
  nodeModules: string;
  step: (step: UpdateStep) => Promise<void>;
  /** A download must finish within this time (10 minutes). */
  downloadTimeoutMs?: number;
}

/** Installs the release as `<dataDir>/releases/<version>`; throws ReleaseRefused or an I/O error. */
export async function installRelease(options: InstallOptions): Promise<string> {
  const { dataDir, update } = options;
  let publicKeyPem: string;
  try {
    publicKeyPem = readFileSync(releaseKeyFile(dataDir), 'utf8');
  } catch {
    throw new ReleaseRefused(
      `this agent has no release key from pairing (${releaseKeyFile(dataDir)}): pair it again with a new code to accept updates`,
    );
  }
  // Before the download: an older or equal version is refused at once (and again, signed, below).
  if (!semver.valid(update.version) || !semver.gt(update.version, options.runningVersion))
    throw new ReleaseRefused(
      `version ${update.version} is not newer than the running ${options.runningVersion}: not installed`,
    );
  const dir = releasesDir(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const bundle = join(dir, '.incoming.tgz');
  const unpacked = join(dir, '.incoming');
  try {
    await options.step('downloading');
    const actualSha256 = await download(options, bundle);
    await options.step('verifying');
    checkRelease({
      version: update.version,
      sha256: update.sha256,
      actualSha256,
      signature: update.signature,
      publicKeyPem,
      runningVersion: options.runningVersion,
    });
    await rm(unpacked, { recursive: true, force: true });
    await mkdir(unpacked, { recursive: true });
    await extract({ file: bundle, cwd: unpacked, strict: true });
    checkContents(unpacked, update.version, options.nodeModules);
    const target = join(dir, update.version);
    // The same version installed before (an update that rolled back) is replaced, unless it runs.
    const current = await currentTarget(dataDir);
    if (current !== null && resolve(dir, current) === target)
      throw new ReleaseRefused(`version ${update.version} is already the current release`);
    await rm(target, { recursive: true, force: true });
    await rename(unpacked, target);
    await linkModules(dir, options.nodeModules);
    return target;
  } finally {
    await rm(bundle, { force: true });
    await rm(unpacked, { recursive: true, force: true });
  }
}

/** Streams the bundle to `file` (at most the announced size) and answers its SHA-256. */
async function download(options: InstallOptions, file: string): Promise<string> {
  const { update } = options;
  const timeoutMs = options.downloadTimeoutMs ?? 600_000;
  const hash = createHash('sha256');
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > update.size) {
        done(new ReleaseRefused(`the download is larger than the announced ${update.size} bytes`));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const response = await get(options.url, {
    authorization: `Bearer ${options.apiKey}`,
    accept: 'application/gzip',
  });
  const timer = setTimeout(
    () => response.destroy(new Error(`the download took longer than ${timeoutMs / 1000} s`)),
    timeoutMs,
  );
  try {
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.resume();
      throw new Error(`the hub answered ${status} to the download of the release`);
    }
    await pipeline(response, count, createWriteStream(file, { mode: 0o600 }));
  } finally {
    clearTimeout(timer);
  }
  if (size !== update.size)
    throw new ReleaseRefused(`the download has ${size} bytes, the hub announced ${update.size}`);
  return hash.digest('hex');
}

/**
 * A GET with node:http(s) rather than fetch: the agent's unit runs Node in lite mode, without
 * WebAssembly, which fetch's HTTP parser needs (the first fetch would fail the whole agent).
 * Resolves with the response once its headers are in (within 30 s).
 */
function get(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  const fail = (why: string) => new Error(`cannot download the release from ${url}: ${why}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.reject(fail('not a URL'));
  }
  const request =
    parsed.protocol === 'https:' ? httpsRequest : parsed.protocol === 'http:' ? httpRequest : null;
  if (!request) return Promise.reject(fail(`${parsed.protocol} is not http: or https:`));
  return new Promise((resolve, reject) => {
    const req = request(parsed, { method: 'GET', headers, timeout: 30_000 });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    // Also after the response: a connection that breaks then fails the response stream, not the agent.
    req.on('error', (err) => reject(fail(err.message)));
    req.on('response', (response) => {
      req.setTimeout(0);
      resolve(response);
    });
    req.end();
  });
}

/** The unpacked release is the announced version, and this Pi has the modules it needs. */
function checkContents(dir: string, version: string, nodeModules: string): void {
  const read = (file: string) => {
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch {
      throw new ReleaseRefused(`the bundle has no readable ${file}: not an agent release`);
    }
  };
  const manifest = read('release.json') as ReleaseManifest;
  const agentPackage = read('agent/package.json') as { version?: string };
  if (manifest.version !== version || agentPackage.version !== version)
    throw new ReleaseRefused(
      `the bundle holds version ${agentPackage.version ?? '?'}, not the announced ${version}`,
    );
  const unmet = unmetDependencies(manifest, nodeModules, process.versions.node);
  if (unmet.length > 0)
    throw new ReleaseRefused(
      `version ${version} needs modules this Pi does not have: ${unmet.join(', ')}; install the release with npm ci instead (docs/OPERATIONS.md)`,
    );
}

/** `releases/node_modules` leads to the installation's third-party modules. */
async function linkModules(dir: string, nodeModules: string): Promise<void> {
  const link = join(dir, 'node_modules');
  const now = await readlink(link).catch(() => null);
  if (now === nodeModules) return;
  const next = join(dir, 'node_modules.next');
  await rm(next, { force: true });
  await symlink(nodeModules, next);
  await rm(link, { recursive: true, force: true });
  await rename(next, link);
}
