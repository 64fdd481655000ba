import { createHash, createHmac } from 'node:crypto';
import {
  AccessReply,
  AccessRequest,
  BridgeConfig,
  bridgeClientId,
  bridgeMessages,
  bridgeTopic,
  Command,
  CommandReply,
  downTopicNames,
  encodeBridgeMessage,
  LogItem,
  LogsAck,
  LogsMessage,
  MAX_ARRAY_ITEMS,
  MAX_CONFIG_BYTES,
  MAX_OFFLINE_KEYS,
  MAX_PAYLOAD_BYTES,
  offlineKeyHash,
  offlineKeySecret,
  parseBridgeMessage,
  parseBridgeTopic,
  RelayStateMessage,
  StatusMessage,
  topicPublishOptions,
  upTopicNames,
} from '@makerspace/shared';
import { describe, expect, it } from 'vitest';

const uuid = '3f2c1d9e-8a4b-4c6d-9e8f-0a1b2c3d4e5f';
const time = '2025-03-01T10:00:00.000Z';
const state = { relay: 'on', since: time, sessionId: 's-1' } as const;

describe('topics', () => {
  it('builds and parses bridge topics', () => {
    expect(bridgeTopic(12, 'status')).toBe('makerspace/v1/bridges/12/status');
    expect(bridgeTopic(12, 'access/reply')).toBe('makerspace/v1/bridges/12/access/reply');
    expect(bridgeClientId(12)).toBe('bridge-12');
    expect(parseBridgeTopic('makerspace/v1/bridges/12/logs/ack')).toEqual({
      resourceId: 12,
      name: 'logs/ack',
    });
    expect(parseBridgeTopic('makerspace/v1/bridges/7/config')).toEqual({ resourceId: 7, name: 'config' });
  });

  it('rejects topics that are not exactly a bridge topic', () => {
    for (const topic of [
      'makerspace/v1/bridges/12',
      'makerspace/v1/bridges/12/',
      'makerspace/v1/bridges/12/unknown',
      'makerspace/v1/bridges/012/status',
      'makerspace/v1/bridges/0/status',
      'makerspace/v1/bridges/-1/status',
      'makerspace/v1/bridges/1e3/status',
      'makerspace/v1/bridges/+/status',
      'makerspace/v1/bridges/12/status/extra',
      'makerspace/v2/bridges/12/status',
      '/makerspace/v1/bridges/12/status',
    ]) {
      expect(parseBridgeTopic(topic), topic).toBeNull();
    }
    expect(() => bridgeTopic(0, 'status')).toThrow(RangeError);
    expect(() => bridgeTopic(1.5, 'status')).toThrow(RangeError);
  });

  it('splits every topic name into up or down, with retain only on status, state, inputs and config', () => {
    const all = [...upTopicNames, ...downTopicNames].sort();
    expect(all).toEqual(Object.keys(bridgeMessages).sort());
    expect(new Set(all).size).toBe(all.length);
    const retained = Object.entries(topicPublishOptions)
      .filter(([, o]) => o.retain)
      .map(([n]) => n)
      .sort();
    expect(retained).toEqual(['config', 'inputs', 'state', 'status']);
    expect(Object.values(topicPublishOptions).every((o) => o.qos === 1)).toBe(true);
  });
});

describe('messages', () => {
  it('accepts valid messages of every kind', () => {
    expect(
      StatusMessage.parse({ online: true, agentVersion: '0.1.0', hardware: 'sim', startedAt: time }),
    ).toBeTruthy();
    expect(StatusMessage.parse({ online: false })).toEqual({ online: false });
    expect(
      RelayStateMessage.parse({ relay: 'off', since: '2025-03-01T11:00:00+01:00', sessionId: null }),
    ).toBeTruthy();
    expect(CommandReply.parse({ id: 'c1', ok: false, state, error: 'relay stuck' })).toBeTruthy();
    expect(
      Command.parse({
        id: 'c1',
        type: 'switchOn',
        sessionId: '77',
        maxDuration: null,
        member: { id: 3, name: 'Ada' },
        expiresAt: time,
      }),
    ).toBeTruthy();
    expect(Command.parse({ id: 'c2', type: 'pulse', seconds: 3, expiresAt: time })).toBeTruthy();
    expect(
      AccessRequest.parse({
        id: 'a1',
        keys: [{ type: 'em4102', token: '0A1B2C3D4E' }],
        currentSession: { id: '5' },
      }),
    ).toBeTruthy();
    expect(
      AccessReply.parse({
        id: 'a1',
        type: 'denied',
        reason: 'noPackage',
        messages: ['No package'],
        member: null,
      }),
    ).toBeTruthy();
    expect(
      AccessReply.parse({ id: 'a1', type: 'allowed', sessionId: '9', maxDuration: 3600, stopped: false }),
    ).toBeTruthy();
    expect(LogsAck.parse({ ids: [uuid] })).toBeTruthy();
    const config = BridgeConfig.parse({
      configVersion: 3,
      name: 'Laser',
      controlType: 'machine',
      pulseSeconds: 5,
      maxOfflineUsage: 600,
      offlineKeys: [offlineKeyHash({ type: 'em4102', token: '0A1B' }, offlineKeySecret('key'))],
      offlineKeyScheme: 'hmac-sha256',
      codeMode: 'totp',
      somethingNewer: { x: 1 },
    });
    expect(config.somethingNewer).toEqual({ x: 1 });
  });

  it('accepts both log item kinds and tells them apart by kind', () => {
    const log = LogItem.parse({
      kind: 'log',
      id: uuid,
      type: 'denied',
      createdAt: time,
      keys: [{ type: 'nfca', token: '04A1B2C3' }],
      reason: 'unknownKey',
      offline: true,
    });
    expect(log.kind).toBe('log');
    const stop = LogItem.parse({
      kind: 'stop',
      id: uuid,
      sessionId: '5',
      stopType: 'takeover',
      stoppedAt: time,
    });
    expect(stop.kind).toBe('stop');
    expect(LogsMessage.parse({ items: [log, stop] }).items).toHaveLength(2);
  });

  it('rejects invalid messages with the failing path', () => {
    const cases: Array<[string, unknown, string]> = [
      ['commands', { id: 'c', type: 'explode', expiresAt: time }, 'type'],
      ['commands', { id: 'c', type: 'pulse' }, 'expiresAt'],
      ['commands', { id: 'c', type: 'pulse', expiresAt: 'tomorrow' }, 'expiresAt'],
      ['commands', { id: 'c', type: 'pulse', seconds: -1, expiresAt: time }, 'seconds'],
      ['state', { relay: 'half', since: time, sessionId: null }, 'relay'],
      ['state', { relay: 'on', since: time }, 'sessionId'],
      ['access', { id: 'a', keys: [], currentSession: null }, 'keys'],
      ['access', { id: 'a', keys: [{ type: 'em4102', token: 'xyz' }], currentSession: null }, 'keys.0.token'],
      [
        'access',
        { id: 'a', keys: [{ type: 'em4102', token: '0a1b' }], currentSession: null },
        'keys.0.token',
      ],
      ['access/reply', { id: 'a', type: 'denied', reason: 'becauseNo' }, 'reason'],
      [
        'logs',
        { items: [{ kind: 'log', id: 'not-a-uuid', type: 'allowed', createdAt: time }] },
        'items.0.id',
      ],
      [
        'logs',
        { items: [{ kind: 'stop', id: uuid, sessionId: '1', stopType: 'whenever', stoppedAt: time }] },
        'items.0.stopType',
      ],
      ['logs', { items: [{ kind: 'other', id: uuid }] }, 'items.0.kind'],
      ['logs', { items: [] }, 'items'],
      ['logs/ack', { ids: ['x'] }, 'ids.0'],
      [
        'config',
        {
          configVersion: 1,
          name: 'x',
          controlType: 'door',
          pulseSeconds: 5,
          maxOfflineUsage: 0,
          offlineKeys: ['ABC'],
          codeMode: 'static',
        },
        'offlineKeys.0',
      ],
      ['status', { online: true }, 'agentVersion'],
    ];
    for (const [name, value, path] of cases) {
      const result = parseBridgeMessage(name as keyof typeof bridgeMessages, JSON.stringify(value));
      expect(result.ok, `${name} ${JSON.stringify(value)}`).toBe(false);
      if (!result.ok) expect(result.error, name).toContain(`${path}:`);
    }
  });

  it('drops a bridge message whose strings or keys carry control characters (tab and line ends pass)', () => {
    const status = (agentVersion: string) =>
      JSON.stringify({ online: true, agentVersion, hardware: 'sim', startedAt: '2026-03-23T09:00:00.000Z' });
    expect(parseBridgeMessage('status', status('a\u0000b'))).toMatchObject({
      ok: false,
      error: expect.stringContaining('agentVersion: control characters'),
    });
    expect(parseBridgeMessage('status', status('1.0\u001b[31m')).ok).toBe(false);
    expect(parseBridgeMessage('status', status('1.0\t2')).ok).toBe(true);
    const log = JSON.stringify({
      online: true,
      agentVersion: '1',
      hardware: 'sim',
      startedAt: '2026-03-23T09:00:00.000Z',
      ['x\u0007']: 1,
    });
    expect(parseBridgeMessage('status', log).ok).toBe(false);
  });

  it('drops payloads that are not JSON, too large, or carry too many items', () => {
    expect(parseBridgeMessage('commands', '{nope')).toMatchObject({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
    expect(parseBridgeMessage('commands', Buffer.alloc(0))).toMatchObject({ ok: false });
    const big = JSON.stringify({ ids: [uuid], pad: 'x'.repeat(MAX_PAYLOAD_BYTES) });
    expect(parseBridgeMessage('logs/ack', big)).toMatchObject({
      ok: false,
      error: expect.stringContaining('exceeds'),
    });
    const many = JSON.stringify({ ids: Array.from({ length: MAX_ARRAY_ITEMS + 1 }, () => uuid) });
    expect(parseBridgeMessage('logs/ack', many).ok).toBe(false);
    const enough = JSON.stringify({ ids: Array.from({ length: MAX_ARRAY_ITEMS }, () => uuid) });
    expect(parseBridgeMessage('logs/ack', enough).ok).toBe(true);
  });

  it('lets a config carry up to 10,000 offline keys (larger than other payloads), and no more', () => {
    const secret = offlineKeySecret('key');
    const hash = (i: number) =>
      offlineKeyHash({ type: 'em4102', token: i.toString(16).toUpperCase() }, secret);
    const config = {
      configVersion: 3,
      name: 'Main door',
      controlType: 'door' as const,
      pulseSeconds: 3,
      maxOfflineUsage: 0,
      codeMode: 'static' as const,
      offlineKeys: Array.from({ length: MAX_OFFLINE_KEYS }, (_, i) => hash(i)),
    };
    const text = encodeBridgeMessage('config', config);
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_PAYLOAD_BYTES);
    const parsed = parseBridgeMessage('config', text);
    expect(parsed.ok && parsed.message.offlineKeys).toHaveLength(MAX_OFFLINE_KEYS);
    const tooMany = { ...config, offlineKeys: [...config.offlineKeys, hash(MAX_OFFLINE_KEYS)] };
    expect(() => encodeBridgeMessage('config', tooMany)).toThrow();
    expect(parseBridgeMessage('config', JSON.stringify(tooMany)).ok).toBe(false);
    // Other topics keep the small limit.
    const padded = JSON.stringify({ ...state, pad: 'x'.repeat(MAX_PAYLOAD_BYTES) });
    expect(parseBridgeMessage('state', padded)).toMatchObject({
      ok: false,
      error: expect.stringContaining('exceeds'),
    });
    expect(
      parseBridgeMessage('config', JSON.stringify({ ...config, pad: 'x'.repeat(MAX_CONFIG_BYTES) })).ok,
    ).toBe(false);
  });

  it('encodes only valid messages', () => {
    expect(JSON.parse(encodeBridgeMessage('state', state))).toEqual(state);
    expect(() => encodeBridgeMessage('state', { ...state, relay: 'maybe' } as never)).toThrow();
  });

  it('hashes offline keys as HMAC-SHA256 of type:TOKEN, keyed per bridge API key', () => {
    const secret = offlineKeySecret('bridge key one');
    const expected = createHmac(
      'sha256',
      createHmac('sha256', 'bridge key one').update('makerspace offline keys v1').digest(),
    )
      .update('em4102:0A1B2C3D4E')
      .digest('hex');
    expect(offlineKeyHash({ type: 'em4102', token: '0A1B2C3D4E' }, secret)).toBe(expected);
    expect(offlineKeyHash({ type: 'em4102', token: '0a1b2c3d4e' }, secret)).toBe(expected);
    expect(offlineKeyHash({ type: 'nfca', token: '0A1B2C3D4E' }, secret)).not.toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
    // Not the unkeyed hash anyone could compute for every 40-bit card id, and another bridge's
    // (or the rotated key's) hashes differ.
    expect(expected).not.toBe(createHash('sha256').update('em4102:0A1B2C3D4E').digest('hex'));
    expect(
      offlineKeyHash({ type: 'em4102', token: '0A1B2C3D4E' }, offlineKeySecret('bridge key two')),
    ).not.toBe(expected);
  });
});
