import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { releaseStatement } from '@makerspace/shared/agent';
import { afterEach, describe, expect, it } from 'vitest';
import { ReleaseRefused } from '../../agent/src/release-check.js';
import { installRelease } from '../../agent/src/release-install.js';
import { releaseKeyFile } from '../../agent/src/releases.js';
import { tempDir } from '../support/processes.js';

/**
 * The agent's download of a release from the hub (node:http, since the unit's lite mode has no
 * fetch): what the hub answers decides, and every failure is an error the update reports, with
 * nothing left behind in the releases folder.
 */
describe('release download', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/bridge/agent-release`;
  }

  const bytes = Buffer.from('not really a tarball, but signed as one');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');

  function agentDir(): string {
    const dir = tempDir('release-download-');
    writeFileSync(releaseKeyFile(dir), publicKey.export({ type: 'spki', format: 'pem' }));
    return dir;
  }

  async function install(url: string, dir = agentDir(), downloadTimeoutMs?: number) {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const steps: string[] = [];
    const result = installRelease({
      dataDir: dir,
      apiKey: 'bridge-key',
      url,
      update: {
        id: 'u1',
        version: '0.9.0',
        sha256,
        size: bytes.length,
        signature: sign(null, Buffer.from(releaseStatement('0.9.0', sha256)), privateKey).toString('base64'),
        url,
      },
      runningVersion: '0.1.0',
      nodeModules: join(dir, 'node_modules'),
      step: async (step) => {
        steps.push(step);
      },
      downloadTimeoutMs,
    });
    return { result, steps, dir };
  }

  const leftovers = (dir: string) => readdirSync(join(dir, 'releases'));

  it('asks with the bridge key, and takes the bytes the hub signed as far as unpacking them', async () => {
    let authorization: string | undefined;
    const url = await serve((req, res) => {
      authorization = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(bytes);
    });
    const { result, steps, dir } = await install(url);
    // Signature and size hold: the bytes are downloaded and checked; they are no tarball.
    await expect(result).rejects.toThrow('TAR_BAD_ARCHIVE: Unrecognized archive format');
    expect(authorization).toBe('Bearer bridge-key');
    expect(steps).toEqual(['downloading', 'verifying']);
    expect(leftovers(dir)).toEqual([]);
  });

  it('reports what the hub answered instead of the bundle', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no release"}');
    });
    const { result, steps, dir } = await install(url);
    await expect(result).rejects.toThrow('the hub answered 404 to the download of the release');
    expect(steps).toEqual(['downloading']);
    expect(leftovers(dir)).toEqual([]);
  });

  it('refuses more bytes than announced, and a bundle cut short', async () => {
    const long = await install(
      await serve((_req, res) => res.writeHead(200).end(Buffer.concat([bytes, Buffer.from('more')]))),
    );
    await expect(long.result).rejects.toThrow(ReleaseRefused);
    await expect(long.result).rejects.toThrow(`larger than the announced ${bytes.length} bytes`);
    expect(leftovers(long.dir)).toEqual([]);

    const short = await install(await serve((_req, res) => res.writeHead(200).end(bytes.subarray(0, 10))));
    await expect(short.result).rejects.toThrow(
      `the download has 10 bytes, the hub announced ${bytes.length}`,
    );
  });

  it('gives up on a download that stalls, and on a hub that cannot be reached', async () => {
    const stalled = await install(
      await serve((_req, res) => {
        res.writeHead(200, { 'content-length': String(bytes.length) });
        res.write(bytes.subarray(0, 5));
      }),
      agentDir(),
      300,
    );
    await expect(stalled.result).rejects.toThrow('the download took longer than 0.3 s');
    expect(leftovers(stalled.dir)).toEqual([]);

    const closed = await serve(() => {});
    // Closed again: nothing listens on its port.
    const server = servers.pop() as Server;
    await new Promise((resolve) => server.close(resolve));
    const refused = await install(closed);
    await expect(refused.result).rejects.toThrow(
      `cannot download the release from ${closed}: connect ECONNREFUSED`,
    );
    expect(existsSync(join(refused.dir, 'releases', '.incoming.tgz'))).toBe(false);
  });
});
