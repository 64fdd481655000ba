import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@makerspace/shared';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Clock } from '../../hub/src/context.js';
import { createAccountWithOwner, type CreatedAccount } from '../../hub/src/identity/bootstrap.js';
import { type Hub, openHub } from '../../hub/src/hub.js';
import type { HubSettings } from '../../hub/src/settings.js';
import { freshDatabase, type TestDatabase } from './dialects.js';

export interface TestHub {
  hub: Hub;
  app: FastifyInstance;
  db: TestDatabase;
  owner: CreatedAccount;
  /** Creates another account with its owner (another tenant). */
  newAccount(name: string, email: string): Promise<CreatedAccount>;
  /** app.inject with the token as Bearer. */
  call(token: string, options: InjectOptions): ReturnType<FastifyInstance['inject']>;
  /** A new member of the owner's account with an API key: the member's id, the key's id and its token. */
  newMemberWithToken(
    firstName: string,
    lastName: string,
  ): Promise<{ id: number; keyId: number; token: string }>;
  /** Listens on free ports: HTTP (with MQTT over WebSocket) and MQTT over TCP. */
  listen(): Promise<{ httpUrl: string; mqttUrl: string; wsUrl: string }>;
  close(): Promise<void>;
}

export function testSettings(url: string): HubSettings {
  return {
    httpHost: '127.0.0.1',
    httpPort: 0,
    mqttHost: '127.0.0.1',
    mqttPort: 0,
    dataDir: '/nonexistent',
    databaseUrl: url,
    publicUrl: undefined,
    secretFile: '/nonexistent/secret',
    logLevel: 'silent',
  };
}

/** A hub on a fresh database with one account (its owner's token in `owner.token`). */
export async function startTestHub(
  dialect: 'sqlite' | 'postgres',
  options: { clock?: Clock; settings?: Partial<HubSettings>; logger?: Logger } = {},
): Promise<TestHub> {
  const db = await freshDatabase(dialect);
  const hub = await openHub(
    { ...testSettings(db.url), ...options.settings },
    {
      clock: options.clock,
      schema: db.schema,
      secret: randomBytes(32),
      logger: options.logger ?? createLogger({ name: 'test-hub', level: 'silent' }),
    },
  );
  const newAccount = (name: string, email: string) =>
    createAccountWithOwner(hub.ctx.db, hub.ctx.tokens, { accountName: name, emailAddress: email });
  const owner = await newAccount('Test makerspace', 'owner@test.example');
  let listening: ReturnType<typeof hub.listen> | undefined;
  const call: TestHub['call'] = (token, options) =>
    hub.app.inject({
      ...options,
      headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) },
    });
  return {
    hub,
    app: hub.app,
    db,
    owner,
    newAccount,
    call,
    async newMemberWithToken(firstName, lastName) {
      const post = (url: string, payload: object) =>
        call(owner.token, { method: 'POST', url: `/api/v1${url}`, payload });
      const member = (await post('/members', { firstName, lastName })).json();
      const key = (await post('/api-keys', { member: member.id })).json();
      const token = (
        await call(owner.token, { method: 'GET', url: `/api/v1/api-keys/${key.id}/token` })
      ).json().token as string;
      return { id: member.id as number, keyId: key.id as number, token };
    },
    // Several tests of one file may ask for the sockets: the hub listens once.
    async listen() {
      listening ??= hub.listen();
      const { httpPort, mqttPort } = await listening;
      return {
        httpUrl: `http://127.0.0.1:${httpPort}`,
        mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
        wsUrl: `ws://127.0.0.1:${httpPort}/mqtt`,
      };
    },
    async close() {
      await hub.close();
      await db.dispose();
    },
  };
}
