import { createHash, randomBytes } from 'node:crypto';

/*
 * Pure parts of the Shelly Gen2+ RPC (Shelly's "Gen2+ Device API": RPC protocol, the Switch
 * component and the Authentication page): the request and answer shapes the driver uses, and the
 * SHA-256 digest the device asks for once a password is set.
 */

/** A JSON-RPC 2.0 style request frame as the device takes it on `POST /rpc`. */
export interface ShellyRpcRequest {
  id: number;
  src: string;
  method: string;
  params?: Record<string, unknown>;
  auth?: ShellyAuth;
}

/** The `auth` object a request carries once the device has answered 401 with a challenge. */
export interface ShellyAuth {
  realm: string;
  username: 'admin';
  nonce: number | string;
  cnonce: number | string;
  response: string;
  algorithm: 'SHA-256';
}

/** The challenge of a 401: from the `WWW-Authenticate` header or the error message's JSON. */
export interface ShellyChallenge {
  realm: string;
  nonce: number | string;
}

/** `Switch.GetStatus`: only the fields the driver reads. Plugs without metering have no apower. */
export interface ShellySwitchStatus {
  id: number;
  output: boolean;
  apower?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The device's user is always `admin`. HA2 is fixed by the device firmware ("dummy_method" and
 * "dummy_uri"), since an RPC frame has no HTTP method and URI of its own; nc is 1, qop "auth".
 */
export function shellyAuth(
  challenge: ShellyChallenge,
  password: string,
  cnonce: number | string = randomBytes(4).readUInt32BE(),
): ShellyAuth {
  const ha1 = sha256(`admin:${challenge.realm}:${password}`);
  const ha2 = sha256('dummy_method:dummy_uri');
  const response = sha256(`${ha1}:${challenge.nonce}:1:${cnonce}:auth:${ha2}`);
  return {
    realm: challenge.realm,
    username: 'admin',
    nonce: challenge.nonce,
    cnonce,
    response,
    algorithm: 'SHA-256',
  };
}

/** Reads `Digest qop="auth", realm="shellyplusplugs-…", nonce="60dc59c6", algorithm=SHA-256`. */
export function parseDigestChallenge(header: string | null | undefined): ShellyChallenge | null {
  if (!header || !/^\s*digest\s/i.test(header)) return null;
  const fields = new Map<string, string>();
  for (const match of header.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) {
    fields.set(match[1].toLowerCase(), match[2] ?? match[3]);
  }
  const realm = fields.get('realm');
  const nonce = fields.get('nonce');
  if (!realm || !nonce) return null;
  const algorithm = fields.get('algorithm');
  if (algorithm && algorithm.toUpperCase() !== 'SHA-256') return null;
  return { realm, nonce: /^\d+$/.test(nonce) ? Number(nonce) : nonce };
}

/** Reads a `Switch.GetStatus` result; null when it is not one (a different device or firmware). */
export function parseSwitchStatus(value: unknown): ShellySwitchStatus | null {
  if (typeof value !== 'object' || value === null) return null;
  const status = value as Record<string, unknown>;
  if (typeof status.output !== 'boolean') return null;
  const apower = status.apower;
  return {
    id: typeof status.id === 'number' ? status.id : 0,
    output: status.output,
    ...(typeof apower === 'number' && Number.isFinite(apower) ? { apower } : {}),
  };
}
