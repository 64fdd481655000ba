import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@makerspace/shared';
import type { InjectOptions } from 'fastify';
import { type Hub, openHub } from '../../hub/src/hub.js';
import { type CreatedAccount, createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import type { HubSettings } from '../../hub/src/settings.js';
import { testSettings } from '../support/hub.js';

export interface Received {
  /** The request's path and query. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How to answer the n-th request (0-based); default 200 "ok". */
  respond: (
    n: number,
    req: Received,
  ) => { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1, port 0. Register its close() in the suite's teardown. */
export async function startReceiver(respond?: Receiver['respond']): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    respond: respond ?? (() => ({ status: 200, body: 'ok' })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const entry = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      const n = received.length;
      received.push(entry);
      const answer = receiver.respond(n, entry);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** The check a receiver does (docs/WEBHOOKS.md). */
export function validSignature(secret: string, r: Received): boolean {
  const timestamp = String(r.headers['x-makerspace-timestamp']);
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex')}`;
  const got = String(r.headers['x-makerspace-signature'] ?? '');
  return got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
}

export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const fastTuning: HubSettings['webhookTuning'] = {
  pollIntervalMs: 100,
  retryBaseMs: 40,
  retryMaxMs: 200,
  timeoutMs: 3000,
};

export interface WebhookHub {
  hub: Hub;
  owner: CreatedAccount;
  newAccount(name: string, email: string): Promise<CreatedAccount>;
  call(token: string, options: InjectOptions): Promise<any>;
  close(): Promise<void>;
}

/** A hub with HUB_WEBHOOK_ALLOW_INSECURE and short retry delays, on the given database. */
export async function openWebhookHub(
  db: { url: string; schema?: string },
  secret: Buffer = randomBytes(32),
  tuning: HubSettings['webhookTuning'] = fastTuning,
  owner?: CreatedAccount,
): Promise<WebhookHub> {
  const hub = await openHub(
    { ...testSettings(db.url), webhookAllowInsecure: true, webhookTuning: tuning },
    { schema: db.schema, secret, logger: createLogger({ name: 'test-hub', level: 'silent' }) },
  );
  const newAccount = (name: string, email: string) =>
    createAccountWithOwner(hub.ctx.db, hub.ctx.tokens, { accountName: name, emailAddress: email });
  return {
    hub,
    owner: owner ?? (await newAccount('Webhook makerspace', 'owner@hooks.example')),
    newAccount,
    call: (token, options) =>
      hub.app.inject({
        ...options,
        headers: { authorization: `Bearer ${token}`, ...(options.headers ?? {}) },
      }),
    close: () => hub.close(),
  };
}
