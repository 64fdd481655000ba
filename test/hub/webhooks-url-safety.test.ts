import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { retryDelay, defaultWebhookSettings } from '../../hub/src/webhooks/worker.js';
import { sendWebhook } from '../../hub/src/webhooks/delivery.js';
import { checkWebhookUrl, refusalOf, type Resolver } from '../../hub/src/webhooks/url-safety.js';

/** A resolver that answers from a table and records every question (no real DNS). */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve: Resolver = async (host) => {
    asked.push(host);
    const found = table[host];
    if (!found) throw new Error('ENOTFOUND');
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { asked, resolve };
}

describe('webhook URL safety', () => {
  const strict = (resolve?: Resolver) => ({ allowInsecure: false, resolve });
  const dev = (resolve?: Resolver) => ({ allowInsecure: true, resolve });

  it('refuses private, link-local, CGNAT, multicast, unspecified and metadata addresses', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      'fd00:ec2::254',
      'fe80::1',
      'ff02::1',
      '::',
      '::ffff:169.254.169.254',
      '::ffff:a00:1',
      '64:ff9b::a9fe:a9fe',
    ]) {
      expect(refusalOf(address, true), address).not.toBeNull();
    }
    expect(refusalOf('93.184.216.34', false)).toBeNull();
    expect(refusalOf('2606:2800:220:1:248:1893:25c8:1946', false)).toBeNull();
  });

  it('allows loopback only with HUB_WEBHOOK_ALLOW_INSECURE', () => {
    expect(refusalOf('127.0.0.1', false)).toMatch(/loopback/);
    expect(refusalOf('::1', false)).toMatch(/loopback/);
    expect(refusalOf('127.0.0.1', true)).toBeNull();
    expect(refusalOf('::1', true)).toBeNull();
  });

  it('judges literal IP URLs without asking DNS', async () => {
    const dns = fakeDns({});
    await expect(checkWebhookUrl('http://169.254.169.254/latest/', dev(dns.resolve))).rejects.toThrow(
      /link-local/,
    );
    await expect(checkWebhookUrl('http://10.0.0.1/', dev(dns.resolve))).rejects.toThrow(/private/);
    await expect(checkWebhookUrl('https://[::ffff:10.0.0.1]/', dev(dns.resolve))).rejects.toThrow(/private/);
    expect(dns.asked).toEqual([]);
  });

  it('requires https unless insecure receivers are allowed', async () => {
    const dns = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
    await expect(checkWebhookUrl('http://hooks.example.com/x', strict(dns.resolve))).rejects.toThrow(/https/);
    await expect(checkWebhookUrl('https://127.0.0.1/x', strict(dns.resolve))).rejects.toThrow(/loopback/);
    const ok = await checkWebhookUrl('https://hooks.example.com/x?key=1', strict(dns.resolve));
    expect(ok.address).toEqual({ address: '93.184.216.34', family: 4 });
    expect((await checkWebhookUrl('http://hooks.example.com/', dev(dns.resolve))).host).toBe(
      'hooks.example.com',
    );
    await expect(checkWebhookUrl('https://user:pw@hooks.example.com/', strict(dns.resolve))).rejects.toThrow(
      /user name/,
    );
  });

  it('refuses a name when any of its addresses is private, and names that do not resolve', async () => {
    const dns = fakeDns({
      'rebind.example.com': ['93.184.216.34', '10.1.2.3'],
      'metadata.example.com': ['169.254.169.254'],
    });
    await expect(checkWebhookUrl('https://rebind.example.com/', strict(dns.resolve))).rejects.toThrow(
      /rebind\.example\.com \(10\.1\.2\.3\)/,
    );
    await expect(checkWebhookUrl('https://metadata.example.com/', strict(dns.resolve))).rejects.toThrow(
      /link-local/,
    );
    await expect(checkWebhookUrl('https://nowhere.example.com/', strict(dns.resolve))).rejects.toThrow(
      /could not be resolved/,
    );
  });

  it('backs off exponentially with jitter up to the cap', () => {
    const s = defaultWebhookSettings;
    expect(retryDelay(1, s, () => 0)).toBe(5_000);
    expect(retryDelay(1, s, () => 1)).toBe(10_000);
    expect(retryDelay(4, s, () => 1)).toBe(80_000);
    expect(retryDelay(30, s, () => 1)).toBe(3_600_000);
    expect(retryDelay(30, s, () => 0)).toBe(1_800_000);
  });
});

describe('IPv6 spellings of internal IPv4 addresses', () => {
  it('judges every form that embeds an IPv4 address by that address', () => {
    for (const address of [
      '::127.0.0.1', // compatible
      '::7f00:1',
      '::ffff:127.0.0.1', // mapped
      '::ffff:0:7f00:1', // translated
      '::ffff:0:127.0.0.1',
      '0:0:0:0:0:ffff:7f00:1',
      '64:ff9b::127.0.0.1', // NAT64
      '64:ff9b::a00:1',
      '2002:7f00:1::', // 6to4
      '2002:a9fe:a9fe::1',
    ]) {
      expect(refusalOf(address, false), address).toMatch(/inside an IPv6 address/);
    }
    expect(refusalOf('::ffff:0:7f00:1', true), 'loopback allowed in development').toBeNull();
    expect(refusalOf('64:ff9b::5db8:d822', false), 'NAT64 of a public address').toBeNull();
    expect(refusalOf('2002:5db8:d822::1', false), '6to4 of a public address').toBeNull();
  });

  it('refuses local-use NAT64 and Teredo whole', () => {
    expect(refusalOf('64:ff9b:1::7f00:1', false)).toMatch(/NAT64/);
    expect(refusalOf('64:ff9b:1:abcd::1', false)).toMatch(/NAT64/);
    expect(refusalOf('2001:0:4136:e378:8000:63bf:3fff:fdd2', false)).toMatch(/Teredo/);
    expect(refusalOf('2001::1', false)).toMatch(/Teredo/);
    // Other 2001: addresses are ordinary public ones.
    expect(refusalOf('2001:4860:4860::8888', false)).toBeNull();
  });

  it('refuses bracketed URLs of these forms without asking DNS', async () => {
    const asked: string[] = [];
    const resolve: Resolver = async (host) => {
      asked.push(host);
      return [];
    };
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::ffff:0:7f00:1]/',
      'https://[64:ff9b:1::a00:1]/',
      'https://[2001::a00:1]/',
    ]) {
      await expect(checkWebhookUrl(url, { allowInsecure: false, resolve }), url).rejects.toThrow(
        /webhooks go to public addresses only/,
      );
    }
    expect(asked).toEqual([]);
  });
});

describe('the address actually connected to', () => {
  it('is judged again when the socket connects: a refused one gets no connection at all', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    let connections = 0;
    server.on('connection', () => {
      connections++;
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      // A check that passed (say, DNS answered a public address) but the address to connect to
      // is loopback (a rebinding answer, or a stale check): strict policy refuses it.
      const target = {
        url: new URL(`http://hooks.example.com:${port}/`),
        host: 'hooks.example.com',
        address: { address: '127.0.0.1', family: 4 as const },
      };
      const refused = await sendWebhook({
        target,
        body: '{}',
        headers: {},
        timeoutMs: 2000,
        allowLoopback: false,
      });
      expect(refused.ok).toBe(false);
      expect(refused.error).toMatch(/refused to connect to 127\.0\.0\.1: a loopback address/);
      expect(connections).toBe(0);
      // The same target with loopback allowed (development) does connect: the test can see one.
      const allowed = await sendWebhook({
        target,
        body: '{}',
        headers: {},
        timeoutMs: 2000,
        allowLoopback: true,
      });
      expect(allowed.ok).toBe(true);
      expect(connections).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
