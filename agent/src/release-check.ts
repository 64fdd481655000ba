import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseStatement } from '@makerspace/shared/agent';
import semver from 'semver';

/*
 * What an agent checks before it installs a release (docs/OPERATIONS.md, "Updating agents"):
 * the bytes are the ones the hub signed, under the key the agent received when it was paired,
 * the version is newer than its own, and the Pi has the third-party modules the release needs.
 */

/** A release the agent will not install, and why (the hub's dashboard shows the message). */
export class ReleaseRefused extends Error {
  override name = 'ReleaseRefused';
}

export interface ReleaseToCheck {
  version: string;
  /** The SHA-256 the update message names. */
  sha256: string;
  /** The SHA-256 of the bytes downloaded. */
  actualSha256: string;
  /** Base64 Ed25519 signature of releaseStatement(version, sha256). */
  signature: string;
  /** The hub's release key from pairing (SPKI PEM). */
  publicKeyPem: string;
  runningVersion: string;
}

export function checkRelease(release: ReleaseToCheck): void {
  if (release.actualSha256 !== release.sha256)
    throw new ReleaseRefused(
      'the downloaded bundle is not the one the hub announced (SHA-256 differs): damaged or altered on the way',
    );
  let key: ReturnType<typeof createPublicKey>;
  try {
    key = createPublicKey(release.publicKeyPem);
  } catch {
    throw new ReleaseRefused('the release key from pairing cannot be read: pair this agent again');
  }
  const signed =
    key.asymmetricKeyType === 'ed25519' &&
    verify(
      null,
      Buffer.from(releaseStatement(release.version, release.actualSha256)),
      key,
      Buffer.from(release.signature, 'base64'),
    );
  if (!signed)
    throw new ReleaseRefused(
      "the release's signature does not verify with the hub's release key from pairing: not installed",
    );
  if (!semver.valid(release.version))
    throw new ReleaseRefused(`the release's version ${release.version} is not a version number`);
  if (!semver.gt(release.version, release.runningVersion))
    throw new ReleaseRefused(
      `version ${release.version} is not newer than the running ${release.runningVersion}: not installed`,
    );
}

/** release.json of a bundle: the third-party modules it was built against. */
export interface ReleaseManifest {
  name: string;
  version: string;
  node?: string | null;
  dependencies: Record<string, { range: string; optional?: boolean }>;
}

/**
 * What the installed third-party modules (in `nodeModules`) lack for the release: each a line
 * such as `mqtt ^6.0.0 (installed: 5.16.0)`. An optional module that is absent is not needed.
 */
export function unmetDependencies(
  manifest: ReleaseManifest,
  nodeModules: string,
  nodeVersion: string,
): string[] {
  const unmet: string[] = [];
  if (manifest.node && !semver.satisfies(nodeVersion, manifest.node))
    unmet.push(`node ${manifest.node} (running: ${nodeVersion})`);
  for (const [name, { range, optional }] of Object.entries(manifest.dependencies)) {
    let installed: string | null = null;
    try {
      installed = JSON.parse(readFileSync(join(nodeModules, name, 'package.json'), 'utf8')).version ?? null;
    } catch {
      installed = null;
    }
    if (installed === null) {
      if (!optional) unmet.push(`${name} ${range} (not installed)`);
    } else if (!semver.satisfies(installed, range)) {
      unmet.push(`${name} ${range} (installed: ${installed})`);
    }
  }
  return unmet;
}
