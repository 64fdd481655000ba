import { describe, expect, it } from 'vitest';
import { retryDelay, defaultWebhookSettings } from '../../hub/src/webhooks/worker.js';
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
