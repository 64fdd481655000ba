import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ipv6Groups } from '../throttling/ip-address.js';

/**
 * Webhook receivers are chosen by account admins, so a URL must not turn the hub into a proxy
 * into its own network (SSRF): every address the host resolves to is checked, both when the
 * webhook is saved and right before each delivery, and the delivery connects to the checked
 * address only (no second look-up an attacker's DNS could answer differently).
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) => {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

export interface UrlPolicy {
  /** HUB_WEBHOOK_ALLOW_INSECURE: http:// and loopback receivers (development, tests). */
  allowInsecure: boolean;
  resolve?: Resolver;
}

export interface CheckedUrl {
  url: URL;
  /** The host without IPv6 brackets. */
  host: string;
  /** The address to connect to (the first one the host resolved to; all were checked). */
  address: ResolvedAddress;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Ranges that are never a public receiver, with the words the error message uses. */
const refused: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (CGNAT) address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address'],
  ['192.88.99.0', 24, 'ipv4', 'a reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['100::', 64, 'ipv6', 'a discard address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address, e.g. the fd00:ec2::254 metadata service'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a site-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

const refusedLists = refused.map(([net, prefix, netType, words]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, netType);
  return { list, netType, words };
});

const dotted = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * IPv6 forms that carry an IPv4 address, where the IPv4 address decides: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64
 * (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::). Forms that cannot be judged by one embedded
 * address are refused whole (local-use NAT64 64:ff9b:1::/48, Teredo 2001::/32).
 */
export function embeddedIpv4(address: string): string | { refused: string } | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return dotted(g[6], g[7]);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return dotted(g[6], g[7]);
  // ::a.b.c.d, but :: and ::1 are themselves (unspecified, loopback).
  if (zero(0, 6) && (g[6] !== 0 || g[7] > 1)) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return { refused: 'a local-use NAT64 address' };
  if (g[0] === 0x2002) return dotted(g[1], g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return { refused: 'a Teredo address (a tunnel to an IPv4 host)' };
  return null;
}

/** Why an address may not receive webhooks, or null when it may. */
export function refusalOf(address: string, allowLoopback: boolean): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (typeof v4 === 'string') {
      const why = refusalOf(v4, allowLoopback);
      return why ? `${why} (${v4} inside an IPv6 address)` : null;
    }
    if (v4) return v4.refused;
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (address === '255.255.255.255') return 'a broadcast address';
  if (loopback.check(address, type)) {
    return allowLoopback ? null : 'a loopback address (allowed only with HUB_WEBHOOK_ALLOW_INSECURE=1)';
  }
  for (const { list, netType, words } of refusedLists) {
    if (netType === type && list.check(address, type)) return words;
  }
  return null;
}

/** Syntax and scheme only (no DNS): the part of the check that needs no network. */
export function parseWebhookUrl(text: string, policy: UrlPolicy): { url: URL; host: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UnsafeUrlError('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    throw new UnsafeUrlError(
      policy.allowInsecure ? 'url must use https:// or http://' : 'url must use https://',
    );
  }
  if (url.username || url.password) {
    throw new UnsafeUrlError(
      'url must not contain a user name or password; put a secret in the query instead',
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new UnsafeUrlError('url has no host');
  return { url, host };
}

/**
 * Checks a receiver URL and resolves its host. A literal IP address is judged without any DNS
 * query or connection. Every resolved address must be allowed (an attacker's name that answers
 * one public and one private address is refused).
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<CheckedUrl> {
  const { url, host } = parseWebhookUrl(text, policy);
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch {
      throw new UnsafeUrlError(`the host ${host} of url could not be resolved`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`the host ${host} of url has no address`);
  }
  for (const { address } of addresses) {
    const why = refusalOf(address, policy.allowInsecure);
    if (why) {
      const shown = address === host ? address : `${host} (${address})`;
      throw new UnsafeUrlError(`url points to ${shown}, ${why}; webhooks go to public addresses only`);
    }
  }
  return { url, host, address: addresses[0] };
}
