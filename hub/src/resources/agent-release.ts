import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { releaseStatement } from '@makerspace/shared';
import type { Db } from '../db/crud.js';
import { hubMeta, setHubMetaOnce } from '../db/hub-meta.js';
import type { TokenBox } from '../secrets.js';

/*
 * The agent release the hub offers its bridges (docs/OPERATIONS.md, "Updating agents"): the
 * newest `makerspace-agent-<version>.tgz` that `npm run build` left in agent/dist-release (or
 * HUB_AGENT_RELEASE_DIR), signed with the hub's own Ed25519 key. Agents learn the public key when
 * they are paired and install nothing else.
 */

/** Where `npm run build` writes the bundle, seen from hub/dist/resources/. */
export const defaultReleaseDir = fileURLToPath(new URL('../../../agent/dist-release/', import.meta.url));

const BUNDLE_NAME = /^makerspace-agent-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;

/** The release key's name in hub_meta; its value is the PKCS#8 private key, sealed with the hub secret. */
const KEY_NAME = 'agentReleaseKey';

export interface AgentRelease {
  version: string;
  file: string;
  size: number;
  /** Lowercase hex. */
  sha256: string;
  /** Base64 Ed25519 signature of releaseStatement(version, sha256). */
  signature: string;
}

/** Orders x.y.z[-pre] versions as semver does for these (a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core, pre] = v.split(/-(.*)/s, 2);
    return { parts: core.split('.').map(Number), pre: pre ?? null };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) {
    if ((x.parts[i] ?? 0) !== (y.parts[i] ?? 0)) return (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** The hub's release signing key: made once (the first hub of a cluster wins), kept sealed. */
export async function releaseSigningKey(db: Db, tokens: TokenBox): Promise<KeyObject> {
  let sealed = await hubMeta(db, KEY_NAME);
  if (sealed === undefined) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const der = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    await setHubMetaOnce(db, KEY_NAME, tokens.seal(der));
    sealed = (await hubMeta(db, KEY_NAME))!;
  }
  return createPrivateKey({ key: Buffer.from(tokens.open(sealed), 'base64'), format: 'der', type: 'pkcs8' });
}

/** The public half as SPKI PEM: what pairing hands to the agent. */
export async function releasePublicKey(db: Db, tokens: TokenBox): Promise<string> {
  return createPublicKey(await releaseSigningKey(db, tokens))
    .export({ format: 'pem', type: 'spki' })
    .toString();
}

/** The newest bundle in `dir`, or null when there is none (not built, or the folder is missing). */
export function newestBundle(dir: string): { version: string; file: string } | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  let best: { version: string; file: string } | null = null;
  for (const name of names) {
    const match = BUNDLE_NAME.exec(name);
    if (match && (!best || compareVersions(match[1], best.version) > 0))
      best = { version: match[1], file: join(dir, name) };
  }
  return best;
}

/** Reads, hashes and signs the newest bundle; the answer is kept while the file stays the same. */
export class AgentReleases {
  private cached: { key: string; release: AgentRelease } | null = null;

  constructor(
    private readonly dir: string,
    private readonly db: Db,
    private readonly tokens: TokenBox,
  ) {}

  async current(): Promise<AgentRelease | null> {
    const found = newestBundle(this.dir);
    if (!found) return null;
    const stat = statSync(found.file);
    const key = `${found.file}:${stat.size}:${stat.mtimeMs}`;
    if (this.cached?.key === key) return this.cached.release;
    const bytes = readFileSync(found.file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const signingKey = await releaseSigningKey(this.db, this.tokens);
    const signature = sign(null, Buffer.from(releaseStatement(found.version, sha256)), signingKey).toString(
      'base64',
    );
    const release = { version: found.version, file: found.file, size: bytes.length, sha256, signature };
    this.cached = { key, release };
    return release;
  }
}
