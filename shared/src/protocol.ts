import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { DenyReason, KeyType, ResourceLogType, StopType } from './enums.js';

/*
 * The hub <-> agent protocol (design section 7; docs/PROTOCOL.md is the prose version).
 * MQTT 3.1.1, every topic under `makerspace/v1/bridges/{resourceId}/`. Both sides validate every
 * payload with these schemas and drop (and log) what does not parse.
 */

export const PROTOCOL_VERSION = 1;
export const TOPIC_ROOT = 'makerspace/v1/bridges';

/** Payloads larger than this are dropped unparsed. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** No array in any message may hold more items than this (offline keys excepted). */
export const MAX_ARRAY_ITEMS = 500;
/** A bridge config lists at most this many offline keys (a large makerspace's members)... */
export const MAX_OFFLINE_KEYS = 10_000;
/** ...so a config payload may be larger than other messages (10,000 keys are about 690 KB). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** The largest payload accepted on a topic. */
export function maxPayloadBytes(name: string): number {
  return name === 'config' ? MAX_CONFIG_BYTES : MAX_PAYLOAD_BYTES;
}

const isoTime = z.iso.datetime({ offset: true });
const id = z.string().min(1).max(100);
const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ARRAY_ITEMS);

/** A key card as read: the token is the card UID as upper-case hex (api-fields.md, member key). */
export const KeyRead = z.object({
  type: KeyType,
  token: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[0-9A-F]+$/, 'must be upper-case hex'),
});
export type KeyRead = z.infer<typeof KeyRead>;

export const MemberRef = z.object({ id: z.number().int().positive(), name: z.string().max(200) });
export type MemberRef = z.infer<typeof MemberRef>;

/** Seconds; null means "no limit". */
const maxDuration = z.number().positive().nullable();

// --- up: the agent publishes ---------------------------------------------------------------

export const StatusMessage = z.discriminatedUnion('online', [
  z.object({
    online: z.literal(true),
    agentVersion: z.string().min(1).max(50),
    /** Human-readable description of the relay (and card reader). */
    hardware: z.string().max(500),
    startedAt: isoTime,
    /** The agent's clock when it sent this; the hub learns the bridge's clock offset from it. */
    clock: isoTime.optional(),
  }),
  /** The Last Will, and what the agent publishes itself when it stops cleanly. */
  z.object({ online: z.literal(false) }),
]);
export type StatusMessage = z.infer<typeof StatusMessage>;

export const RelayStateMessage = z.object({
  relay: z.enum(['on', 'off']),
  /** When the relay last changed. */
  since: isoTime,
  /** The machine session (or door opening) the relay is on for; null when off or switched locally. */
  sessionId: id.nullable(),
});
export type RelayStateMessage = z.infer<typeof RelayStateMessage>;

/** The kinds of the agent's inputs (docs/PROTOCOL.md, "Inputs"). */
export const InputKind = z.enum(['busy', 'interlock', 'doorContact', 'exitButton']);
export type InputKind = z.infer<typeof InputKind>;

/**
 * The agent's inputs as they are now (retained; sent again on every change). `active` is what
 * the kind senses: busy, closed (an interlock), open (a door contact), pressed (an exit
 * button); null while unknown.
 */
export const InputsMessage = z.object({
  inputs: list(
    z.object({
      name: z.string().min(1).max(40),
      kind: InputKind,
      label: z.string().min(1).max(60),
      active: z.boolean().nullable(),
      since: isoTime,
      /** Door contacts: open for longer than the agent's heldOpenSeconds. */
      heldOpen: z.boolean().optional(),
    }),
  ),
  /** A machine idle past its idleTimeoutSeconds: the session ends at `cutAt` unless it gets busy. */
  idleWarning: z.object({ sessionId: id, cutAt: isoTime }).nullable(),
});
export type InputsMessage = z.infer<typeof InputsMessage>;

export const CommandReply = z.object({
  /** The command's id. */
  id,
  ok: z.boolean(),
  /** The relay state after the command (the real one, also when ok is false). */
  state: RelayStateMessage,
  error: z.string().max(1000).optional(),
});
export type CommandReply = z.infer<typeof CommandReply>;

export const AccessRequest = z.object({
  /** Agent-made; echoed on access/reply. */
  id,
  /**
   * Names the tap: a repeated tap id gets the first decision and no second log. The agent uses
   * it as the id of its own log when it decides the tap offline, so the hub stores one of the two.
   */
  tapId: z.uuid().optional(),
  /** When the card was tapped (the agent's clock). */
  tappedAt: isoTime.optional(),
  keys: list(KeyRead).min(1),
  /** The machine session running on the agent when the card was tapped. */
  currentSession: z.object({ id }).nullable(),
});
export type AccessRequest = z.infer<typeof AccessRequest>;

/** A resource log written on the agent (offline decisions, reboots); the hub stores it once by id. */
export const LogEntry = z.object({
  kind: z.literal('log'),
  id: z.uuid(),
  type: ResourceLogType,
  createdAt: isoTime,
  stoppedAt: isoTime.nullable().optional(),
  stopType: StopType.nullable().optional(),
  sessionId: id.nullable().optional(),
  memberId: z.number().int().positive().nullable().optional(),
  keys: list(KeyRead).optional(),
  reason: DenyReason.nullable().optional(),
  /** True when the agent decided without the hub (offline keys). */
  offline: z.boolean().optional(),
  idleDurationSeconds: z.number().nonnegative().optional(),
  notes: z.string().max(2000).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type LogEntry = z.infer<typeof LogEntry>;

/** A machine session that ended on the agent (switch-off, maxDuration, takeover, tap to stop). */
export const SessionStop = z.object({
  kind: z.literal('stop'),
  id: z.uuid(),
  sessionId: id,
  stopType: StopType,
  stoppedAt: isoTime,
  idleDurationSeconds: z.number().nonnegative().optional(),
});
export type SessionStop = z.infer<typeof SessionStop>;

export const LogItem = z.discriminatedUnion('kind', [LogEntry, SessionStop]);
export type LogItem = z.infer<typeof LogItem>;

export const LogsMessage = z.object({ items: list(LogItem).min(1) });
export type LogsMessage = z.infer<typeof LogsMessage>;

// --- down: the hub publishes ---------------------------------------------------------------

export const Command = z.object({
  id,
  type: z.enum(['switchOn', 'switchOff', 'pulse']),
  sessionId: id.optional(),
  /** Pulse length in seconds (doors, and `pulse` on any resource); the agent's pulseSeconds otherwise. */
  seconds: z.number().positive().max(3600).optional(),
  /** Machine sessions: the agent switches off by itself after this many seconds. */
  maxDuration: maxDuration.optional(),
  member: MemberRef.nullable().optional(),
  /**
   * Absolute, in the bridge's clock (the hub adds the offset it learnt at connect). The agent
   * never carries out a command after this time; one it already carried out it answers again.
   */
  expiresAt: isoTime,
});
export type Command = z.infer<typeof Command>;

/** The hub's access decision: Fabman's bridge access response shape plus the request's id. */
export const AccessReply = z.object({
  id,
  type: z.enum(['allowed', 'denied', 'message']),
  sessionId: id.optional(),
  maxDuration: maxDuration.optional(),
  /** The session was opened and closed at once (doors), or the tap stopped the running session. */
  stopped: z.boolean().optional(),
  member: MemberRef.nullable().optional(),
  messages: list(z.string().max(500)).optional(),
  reason: DenyReason.optional(),
});
export type AccessReply = z.infer<typeof AccessReply>;

export const LogsAck = z.object({ ids: list(z.uuid()) });
export type LogsAck = z.infer<typeof LogsAck>;

/** Retained per bridge; unknown extra fields are kept so that older agents accept newer hubs. */
export const BridgeConfig = z.looseObject({
  configVersion: z.number().int().nonnegative(),
  name: z.string().max(200),
  controlType: z.enum(['machine', 'door', 'pos', 'other']),
  pulseSeconds: z.number().positive().max(3600),
  /** Seconds a machine may run on an offline decision; 0 means machines do not start offline. */
  maxOfflineUsage: z.number().nonnegative(),
  /** offlineKeyHash() of every key allowed to open this resource while the hub is away. */
  offlineKeys: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256'))
    .max(MAX_OFFLINE_KEYS),
  codeMode: z.enum(['static', 'totp']),
  /**
   * How offlineKeys are hashed: 'hmac-sha256' keyed with the bridge's own secret (derived from
   * its API key). Absent in configs of older hubs (plain sha256), which agents no longer trust.
   */
  offlineKeyScheme: z.literal('hmac-sha256').optional(),
  heartbeatInterval: z.number().positive().optional(),
  /** Doors: why the relay is held on (`openingHours`, `firstIn`); absent for tap-only doors. */
  unlockMode: z.enum(['normal', 'openingHours', 'firstIn']).optional(),
  /**
   * Doors: hold the relay on until this time (the hub's clock plus the bridge's offset), also
   * across a restart and while the hub is away; absent or past: locked between taps.
   */
  unlockUntil: isoTime.optional(),
  /**
   * Machines with a busy input: a session idle this long is warned (buzzer, the member's page),
   * then ended after idleWarningSeconds more unless the machine gets busy. Absent: no idle cut.
   */
  idleTimeoutSeconds: z.number().int().positive().optional(),
  idleWarningSeconds: z.number().int().nonnegative().optional(),
  /** Machines with a busy input: a busy machine runs this long past its maxDuration. */
  busyGraceSeconds: z.number().int().nonnegative().optional(),
});
export type BridgeConfig = z.infer<typeof BridgeConfig>;

// --- agent updates (docs/OPERATIONS.md, "Updating agents") ----------------------------------

/** The hub asks the agent to install a release (down, QoS 1, never retained). */
export const UpdateRequest = z.object({
  /** Names this update; the agent's progress reports echo it. */
  id,
  /** The release's version (semver); the agent refuses one not newer than its own. */
  version: z.string().min(1).max(50),
  /** Lowercase hex SHA-256 of the bundle (a .tgz). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256'),
  /** The bundle's size in bytes. */
  size: z
    .int()
    .positive()
    .max(256 * 1024 * 1024),
  /** Base64 Ed25519 signature of releaseStatement(version, sha256) under the hub's release key. */
  signature: z.string().min(1).max(200),
  /** Where the bundle is (the hub's bridge API, with the bridge API key as Bearer token). */
  url: z.url({ protocol: /^https?$/ }),
});
export type UpdateRequest = z.infer<typeof UpdateRequest>;

/** The steps of an update as the agent reports them (in this order; `failed`/`rolledBack` end it). */
export const UpdateStep = z.enum([
  'downloading',
  'verifying',
  'installed',
  'waitingForIdle',
  'restarting',
  'connected',
  'rolledBack',
  'failed',
]);
export type UpdateStep = z.infer<typeof UpdateStep>;

/** The agent's progress on an update (up, QoS 1). */
export const UpdateProgress = z.object({
  /** The update's id (from UpdateRequest). */
  id,
  /** The version being installed. */
  version: z.string().min(1).max(50),
  step: UpdateStep,
  /** The version the agent runs while it reports this. */
  runningVersion: z.string().min(1).max(50),
  /** Why it failed or rolled back. */
  error: z.string().max(1000).optional(),
  at: isoTime,
});
export type UpdateProgress = z.infer<typeof UpdateProgress>;

/**
 * What the hub signs for a release: the version and the bundle's SHA-256, so that a signature
 * cannot be moved to another bundle or another version number.
 */
export function releaseStatement(version: string, sha256: string): string {
  return `makerspace-agent release v1\nversion ${version}\nsha256 ${sha256}\n`;
}

// --- topics ---------------------------------------------------------------------------------

/** Every topic name (the part after `makerspace/v1/bridges/{resourceId}/`) and its payload. */
export const bridgeMessages = {
  status: StatusMessage,
  state: RelayStateMessage,
  inputs: InputsMessage,
  replies: CommandReply,
  access: AccessRequest,
  logs: LogsMessage,
  commands: Command,
  'access/reply': AccessReply,
  'logs/ack': LogsAck,
  config: BridgeConfig,
  update: UpdateRequest,
  'update/progress': UpdateProgress,
} as const;
export type BridgeTopicName = keyof typeof bridgeMessages;
export type BridgeMessage<N extends BridgeTopicName> = z.infer<(typeof bridgeMessages)[N]>;

/** Topics the agent publishes and the hub subscribes to. */
export const upTopicNames = [
  'status',
  'state',
  'replies',
  'access',
  'logs',
  'inputs',
  'update/progress',
] as const;
/** Topics the hub publishes and the agent subscribes to. */
export const downTopicNames = ['commands', 'access/reply', 'logs/ack', 'config', 'update'] as const;
export type UpTopicName = (typeof upTopicNames)[number];
export type DownTopicName = (typeof downTopicNames)[number];

/** How each message is published. Everything is QoS 1; only status, state and config are retained. */
export const topicPublishOptions: Record<BridgeTopicName, { qos: 1; retain: boolean }> = {
  status: { qos: 1, retain: true },
  state: { qos: 1, retain: true },
  inputs: { qos: 1, retain: true },
  replies: { qos: 1, retain: false },
  access: { qos: 1, retain: false },
  logs: { qos: 1, retain: false },
  commands: { qos: 1, retain: false },
  'access/reply': { qos: 1, retain: false },
  'logs/ack': { qos: 1, retain: false },
  config: { qos: 1, retain: true },
  update: { qos: 1, retain: false },
  'update/progress': { qos: 1, retain: false },
};

export function isBridgeTopicName(name: string): name is BridgeTopicName {
  return Object.hasOwn(bridgeMessages, name);
}

export function isUpTopicName(name: string): name is UpTopicName {
  return (upTopicNames as readonly string[]).includes(name);
}

export function isDownTopicName(name: string): name is DownTopicName {
  return (downTopicNames as readonly string[]).includes(name);
}

function assertResourceId(resourceId: number): void {
  if (!Number.isSafeInteger(resourceId) || resourceId <= 0) {
    throw new RangeError(`resource id must be a positive integer, got ${resourceId}`);
  }
}

/** `makerspace/v1/bridges/{resourceId}/{name}` */
export function bridgeTopic(resourceId: number, name: BridgeTopicName): string {
  assertResourceId(resourceId);
  return `${TOPIC_ROOT}/${resourceId}/${name}`;
}

/** The prefix a bridge's topics share, with a trailing slash. */
export function bridgeTopicPrefix(resourceId: number): string {
  assertResourceId(resourceId);
  return `${TOPIC_ROOT}/${resourceId}/`;
}

/** The MQTT client id of a bridge. */
export function bridgeClientId(resourceId: number): string {
  assertResourceId(resourceId);
  return `bridge-${resourceId}`;
}

/** Splits a topic into resource id and name; null for anything that is not exactly a bridge topic. */
export function parseBridgeTopic(topic: string): { resourceId: number; name: BridgeTopicName } | null {
  const root = `${TOPIC_ROOT}/`;
  if (!topic.startsWith(root)) return null;
  const rest = topic.slice(root.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return null;
  const idText = rest.slice(0, slash);
  // Canonical decimal only: "012" or "1e3" would be a second spelling of the same bridge.
  if (!/^[1-9][0-9]{0,15}$/.test(idText)) return null;
  const resourceId = Number(idText);
  if (!Number.isSafeInteger(resourceId)) return null;
  const name = rest.slice(slash + 1);
  if (!isBridgeTopicName(name)) return null;
  return { resourceId, name };
}

export type ParsedMessage<N extends BridgeTopicName> =
  | { ok: true; message: BridgeMessage<N> }
  | { ok: false; error: string };

/** Size check, JSON parse and schema validation of one payload; never throws. */
export function parseBridgeMessage<N extends BridgeTopicName>(
  name: N,
  payload: Buffer | Uint8Array | string,
): ParsedMessage<N> {
  const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
  const limit = maxPayloadBytes(name);
  if (size > limit) return { ok: false, error: `payload of ${size} bytes exceeds ${limit}` };
  let value: unknown;
  try {
    value = JSON.parse(typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8'));
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  // What a bridge sends is stored and shown: its strings carry no control characters (a NUL in
  // `agentVersion` would reach the database and every page), as the HTTP API refuses them.
  const control = isUpTopicName(name) ? controlCharacterAt(value, '') : null;
  if (control !== null)
    return { ok: false, error: `${control || '(root)'}: control characters are not allowed` };
  const result = bridgeMessages[name].safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map(
      (i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`,
    );
    return { ok: false, error: problems.join('; ') };
  }
  return { ok: true, message: result.data as BridgeMessage<N> };
}

const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The path of the first string (value or key) holding a control character other than tab and line ends. */
function controlCharacterAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return controlCharacters.test(value) ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (controlCharacters.test(key)) return at;
    const found = controlCharacterAt(inner, at);
    if (found !== null) return found;
  }
  return null;
}

/** Validates and serialises a message; throws on an invalid message or one that is too large. */
export function encodeBridgeMessage<N extends BridgeTopicName>(name: N, message: BridgeMessage<N>): string {
  const value = bridgeMessages[name].parse(message);
  const text = JSON.stringify(value);
  const size = Buffer.byteLength(text);
  const limit = maxPayloadBytes(name);
  if (size > limit) throw new RangeError(`${name} message of ${size} bytes exceeds ${limit}`);
  return text;
}

/**
 * The secret a bridge's offline-key hashes are keyed with: derived from its bridge API key, so
 * only that bridge and the hub hold it, and rotating the key changes every hash.
 */
export function offlineKeySecret(bridgeApiKey: string): Buffer {
  return createHmac('sha256', bridgeApiKey).update('makerspace offline keys v1').digest();
}

/**
 * The offline-key hash: lowercase hex HMAC-SHA256 of `${type}:${token}` (token as upper-case hex,
 * the canonical form of a member key), keyed with the bridge's `offlineKeySecret`. Unkeyed hashes
 * of 40-bit card ids could be reversed by trying every id; keyed ones need the bridge's key too.
 */
export function offlineKeyHash(key: { type: string; token: string }, secret: Buffer): string {
  return createHmac('sha256', secret).update(`${key.type}:${key.token.toUpperCase()}`).digest('hex');
}
