import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, PairingRedeemed } from '@makerspace/shared';
import { writeFileAtomic } from './atomic-file.js';
import { releaseKeyFile } from './releases.js';

export interface PairOptions {
  /** Where the key file and config.json go (default /etc/makerspace-agent). */
  dir: string;
  /** The agent's data directory (default /var/lib/makerspace-agent). */
  dataDir?: string;
  /** The hub's MQTT URL; default MQTT over WebSocket on the hub's own address (`/mqtt`). */
  mqtt?: string;
  /** The user the agent runs as: the key and config files are given to it (pairing runs as root). */
  owner?: { uid: number; gid: number };
}

export interface PairResult {
  resource: number;
  name: string;
  configFile: string;
  apiKeyFile: string;
  /** The config had no hardware yet: a simulated relay was written, to be replaced. */
  simulatedHardware: boolean;
  /** Where the hub's release key went (agent updates); null when the hub sent none. */
  releaseKeyFile: string | null;
}

/** `ws(s)://host[:port]/mqtt` of an `http(s)://` hub URL (the hub serves MQTT there too). */
export function mqttUrlOf(hub: URL): string {
  const ws = new URL(hub.href);
  ws.protocol = hub.protocol === 'https:' ? 'wss:' : 'ws:';
  ws.pathname = `${hub.pathname.replace(/\/+$/, '')}/mqtt`;
  ws.search = '';
  ws.hash = '';
  return ws.href;
}

/**
 * `makerspace-agent pair <hub URL> <code>` (DESIGN 3): redeems a pairing code that an admin made
 * in the hub, writes the bridge API key (mode 0600) and the agent's config. An existing config
 * keeps its hardware, card reader and other settings; only the hub, resource and key change.
 */
export async function pair(hubUrl: string, code: string, options: PairOptions): Promise<PairResult> {
  let hub: URL;
  try {
    hub = new URL(hubUrl);
  } catch {
    throw new ConfigError('(arguments)', [`hub URL: ${hubUrl} is not a URL (e.g. https://hub.example)`]);
  }
  if (hub.protocol !== 'http:' && hub.protocol !== 'https:') {
    throw new ConfigError('(arguments)', ['hub URL: must start with http:// or https://']);
  }
  const base = hub.href.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/bridge-pairings/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ code }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new Error(`cannot reach the hub at ${base}: ${(err as Error).message}`);
  }
  const body: any = await res.json().catch(() => null);
  if (!res.ok) {
    throw new Error(
      `the hub refused the pairing code (${res.status}): ${body?.message ?? 'no reason given'}`,
    );
  }
  const paired = PairingRedeemed.parse(body);

  await mkdir(options.dir, { recursive: true });
  const apiKeyFile = join(options.dir, 'api-key');
  const configFile = join(options.dir, 'config.json');
  await writeFileAtomic(apiKeyFile, `${paired.apiKey}\n`, 0o600);
  // An existing file keeps its mode through the rename of a new one; make sure of it.
  await chmod(apiKeyFile, 0o600);

  const existing = existsSync(configFile) ? JSON.parse(readFileSync(configFile, 'utf8')) : {};
  const dataDir = options.dataDir ?? existing.dataDir ?? '/var/lib/makerspace-agent';
  const simulatedHardware = existing.hardware === undefined;
  const config = {
    ...existing,
    hub: options.mqtt ?? mqttUrlOf(hub),
    resourceId: paired.resource,
    apiKeyFile,
    controlType: paired.controlType === 'door' ? 'door' : 'machine',
    pulseSeconds: existing.pulseSeconds ?? paired.pulseSeconds,
    dataDir,
    hardware: existing.hardware ?? { kind: 'simulated', stateFile: join(dataDir, 'relay.json') },
    // Over mqtt(s):// the hub's HTTP address is not in `hub`: updates download from here.
    ...(options.mqtt ? { updates: { ...existing.updates, hubUrl: base } } : {}),
    ...(existing.hardware === undefined && existing.cardReader === undefined
      ? { cardReader: { kind: 'simulated' } }
      : {}),
  };
  await writeFileAtomic(configFile, `${JSON.stringify(config, null, 2)}\n`, 0o600);
  // The hub's release key: the agent installs only releases signed with it. Trusted from here,
  // the one moment the agent talks to the hub on the strength of an admin's code.
  let keyFile: string | null = null;
  if (paired.releaseKey) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    keyFile = releaseKeyFile(dataDir);
    await writeFileAtomic(keyFile, paired.releaseKey, 0o600);
  }
  // Written by root, read by the service: the agent's user must own them (still 0600).
  if (options.owner) {
    for (const file of [apiKeyFile, configFile, keyFile, keyFile && dataDir]) {
      if (file) await chown(file, options.owner.uid, options.owner.gid);
    }
  }
  return {
    resource: paired.resource,
    name: paired.name,
    configFile,
    apiKeyFile,
    simulatedHardware,
    releaseKeyFile: keyFile,
  };
}
