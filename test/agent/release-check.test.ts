import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extract } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRelease, ReleaseRefused, unmetDependencies } from '../../agent/src/release-check.js';
import { agentReleases } from '../../hub/src/resources/agent-updates.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { tempDir } from '../support/processes.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The hub signs the bundle it offers; the agent checks it with the key from pairing. */
describe('release signatures: signed by the hub, checked by the agent', () => {
  let t: TestHub;
  let dir: string;
  let publicKey: string;
  const bytes = Buffer.from('a release bundle, as bytes');

  beforeAll(async () => {
    dir = tempDir('releases-');
    writeFileSync(join(dir, 'makerspace-agent-0.2.0.tgz'), bytes);
    t = await startTestHub('sqlite', { settings: { agentReleaseDir: dir } });
    const info = await t.call(t.owner.token, { method: 'GET', url: '/api/v1/agent-release' });
    expect(info.statusCode).toBe(200);
    publicKey = info.json().publicKey;
    expect(info.json()).toMatchObject({
      available: true,
      version: '0.2.0',
      size: bytes.length,
      sha256: sha256(bytes),
    });
  });
  afterAll(() => t.close());

  const signed = async () => (await agentReleases(t.hub.ctx).current())!;
  const check = async (changes: Partial<Parameters<typeof checkRelease>[0]> = {}) => {
    const release = await signed();
    return () =>
      checkRelease({
        version: release.version,
        sha256: release.sha256,
        actualSha256: sha256(bytes),
        signature: release.signature,
        publicKeyPem: publicKey,
        runningVersion: '0.1.0',
        ...changes,
      });
  };

  it('accepts the bundle the hub signed, under the key it hands out at pairing', async () => {
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(await check()).not.toThrow();
  });

  it('refuses a tampered bundle, also when the announced hash is changed to match it', async () => {
    const tampered = sha256(Buffer.concat([bytes, Buffer.from('!')]));
    expect(await check({ actualSha256: tampered })).toThrow(/SHA-256 differs/);
    expect(await check({ actualSha256: tampered, sha256: tampered })).toThrow(/signature does not verify/);
  });

  it('refuses a signature under another key, and a signature moved to another version', async () => {
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(await check({ publicKeyPem: other })).toThrow(/signature does not verify/);
    // The version is part of what is signed: relabelling a signed bundle as newer fails.
    expect(await check({ version: '9.9.9' })).toThrow(/signature does not verify/);
    // An RSA key from pairing is not the hub's kind of key.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    expect(await check({ publicKeyPem: rsa })).toThrow(ReleaseRefused);
    expect(await check({ publicKeyPem: 'not a key' })).toThrow(/pair this agent again/);
  });

  it('refuses a release that is not newer than the running version', async () => {
    expect(await check({ runningVersion: '0.2.0' })).toThrow(/not newer than the running 0.2.0/);
    expect(await check({ runningVersion: '0.3.0' })).toThrow(/not newer/);
    expect(await check({ runningVersion: '0.2.0-beta.1' })).not.toThrow();
  });

  it('keeps one key, sealed: a new bundle is signed with the same key, and the stored key is no PEM', async () => {
    writeFileSync(join(dir, 'makerspace-agent-0.10.0.tgz'), Buffer.from('newer'));
    const release = await signed();
    expect(release.version).toBe('0.10.0');
    const info = await t.call(t.owner.token, { method: 'GET', url: '/api/v1/agent-release' });
    expect(info.json().publicKey).toBe(publicKey);
    const stored = await t.hub.ctx.db
      .selectFrom('hub_meta')
      .select('value')
      .where('name', '=', 'agentReleaseKey')
      .executeTakeFirstOrThrow();
    expect(stored.value).not.toContain('PRIVATE KEY');
    expect(() =>
      checkRelease({
        version: '0.10.0',
        sha256: release.sha256,
        actualSha256: sha256(Buffer.from('newer')),
        signature: release.signature,
        publicKeyPem: publicKey,
        runningVersion: '0.2.0',
      }),
    ).not.toThrow();
  });
});

describe('a release needs the third-party modules the Pi has', () => {
  const modules = tempDir('modules-');
  const install = (name: string, version: string) => {
    mkdirSync(join(modules, name), { recursive: true });
    writeFileSync(join(modules, name, 'package.json'), JSON.stringify({ name, version }));
  };
  install('mqtt', '5.16.0');
  install('zod', '4.1.5');

  it('names every module missing or of a version outside the range; optional ones may be absent', () => {
    const manifest = {
      name: 'makerspace-agent',
      version: '0.2.0',
      node: '>=20.19',
      dependencies: {
        mqtt: { range: '^6.0.0' },
        zod: { range: '^4.1.5' },
        pino: { range: '^10.0.0' },
        onoff: { range: '^6.0.3', optional: true },
      },
    };
    expect(unmetDependencies(manifest, modules, '20.19.0')).toEqual([
      'mqtt ^6.0.0 (installed: 5.16.0)',
      'pino ^10.0.0 (not installed)',
    ]);
    expect(
      unmetDependencies({ ...manifest, dependencies: { zod: { range: '^4.0.0' } } }, modules, '18.0.0'),
    ).toEqual(['node >=20.19 (running: 18.0.0)']);
  });

  it('the bundle npm run build makes names the modules of agent, hardware and shared, and the Pi here has them', async () => {
    const root = new URL('../../', import.meta.url);
    const pkg = (name: string) => JSON.parse(readFileSync(new URL(`${name}/package.json`, root), 'utf8'));
    const version = pkg('agent').version;
    const out = tempDir('bundle-');
    await extract({
      file: new URL(`agent/dist-release/makerspace-agent-${version}.tgz`, root).pathname,
      cwd: out,
      filter: (path) => path === 'release.json',
    });
    const manifest = JSON.parse(readFileSync(join(out, 'release.json'), 'utf8'));
    expect(manifest.version).toBe(version);
    const expected = ['agent', 'hardware', 'shared']
      .flatMap((p) => Object.keys({ ...pkg(p).dependencies, ...pkg(p).optionalDependencies }))
      .filter((d) => !d.startsWith('@makerspace/'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...new Set(expected)].sort());
    expect(manifest.dependencies.onoff.optional).toBe(true);
    expect(manifest.dependencies.mqtt.optional).toBe(false);
    expect(
      unmetDependencies(manifest, new URL('node_modules', root).pathname, process.versions.node),
    ).toEqual([]);
  });
});
