import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The ranges behind HUB_TRUST_PROXY's words (the same as the HTTP side's proxy-addr). */
const namedRanges: Record<string, [string, number][]> = {
  loopback: [
    ['127.0.0.0', 8],
    ['::1', 128],
  ],
  linklocal: [
    ['169.254.0.0', 16],
    ['fe80::', 10],
  ],
  uniquelocal: [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['fc00::', 7],
  ],
};

/** `1.2.3.4` for `::ffff:1.2.3.4`; any other address as it is. */
export function plainAddress(address: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

/** Is the address one of the proxies HUB_TRUST_PROXY names (addresses, CIDR ranges, words)? */
export function trustedProxies(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  const add = (address: string, bits?: number) => {
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  };
  for (const entry of entries) {
    const ranges = namedRanges[entry];
    if (ranges) for (const [address, bits] of ranges) add(address, bits);
    else {
      const [address, bits] = entry.split('/');
      add(address, bits === undefined ? undefined : Number(bits));
    }
  }
  return (address) => {
    const plain = plainAddress(address);
    const type = isIP(plain);
    return type !== 0 && list.check(plain, type === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * The address a WebSocket client connects from: the socket's peer, or, when that peer is a
 * trusted proxy, the right-most `X-Forwarded-For` entry that is not one (as Fastify reads it
 * for HTTP), so bridges behind a proxy are not all counted as the proxy.
 */
export function webSocketClientAddress(
  request: IncomingMessage,
  trusted: (address: string) => boolean,
): string {
  let address = plainAddress(request.socket.remoteAddress ?? '');
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => isIP(plainAddress(s)) !== 0);
  while (hops.length > 0 && trusted(address)) address = plainAddress(hops.pop() as string);
  return address;
}
