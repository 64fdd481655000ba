import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase, type TestDatabase } from '../support/dialects.js';
import {
  openWebhookHub,
  type Receiver,
  sleep,
  startReceiver,
  waitFor,
  type WebhookHub,
} from './webhooks-helpers.js';

/**
 * POST /webhooks/{id}/deliveries/{deliveryId}/retry. Automatic retries wait a minute here, so
 * whatever is delivered within the test's few seconds went out because of the retry call.
 */
describeEachDialect('webhooks: retrying a delivery now', (dialect) => {
  let db: TestDatabase;
  let t: WebhookHub;
  let owner: string;
  const teardown: (() => Promise<void>)[] = [];
  const receiver = async (respond?: Receiver['respond']) => {
    const r = await startReceiver(respond);
    teardown.push(() => r.close());
    return r;
  };
  const api = async (token: string, method: string, url: string, payload?: unknown) => {
    const res = await t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };
  const hookFor = async (url: string) => {
    const res = await api(owner, 'POST', '/webhooks', { url, categories: ['member'], label: 'retry' });
    expect(res.status).toBe(201);
    return res.body;
  };
  const events = async (hookId: number) => (await api(owner, 'GET', `/webhooks/${hookId}/events`)).body;
  let n = 0;
  const newMember = async () => {
    n++;
    expect((await api(owner, 'POST', '/members', { firstName: `Retry${n}` })).status).toBe(201);
  };

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    t = await openWebhookHub(db, randomBytes(32), {
      pollIntervalMs: 100,
      retryBaseMs: 120_000,
      retryMaxMs: 120_000,
      timeoutMs: 3000,
    });
    owner = t.owner.token;
  });
  afterEach(async () => {
    for (const close of teardown.splice(0)) await close();
  });
  afterAll(async () => {
    await t?.close();
    await db?.dispose();
  });

  it('a failed delivery, retried after the receiver is fixed, is delivered at once and in order', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 204 } : { status: 500, body: 'db down' }));
    const hook = await hookFor(r.url);
    await newMember();
    await newMember();
    const failed = await waitFor('the first attempt', async () => {
      const list = await events(hook.id);
      // The list reads deliveries and attempts apart: wait until both show the failed attempt.
      const first = list[1]?.delivery;
      return first?.attempts.length === 1 && Date.parse(first.nextAttemptAt) > Date.now() ? list : null;
    });
    // Newest first: the first event failed with 500, the second waits behind it.
    expect(failed[1].delivery).toMatchObject({ state: 'pending', attempts: [{ statusCode: 500 }] });
    expect(failed[0].delivery.attempts).toEqual([]);
    expect(Date.parse(failed[1].delivery.nextAttemptAt) - Date.now()).toBeGreaterThan(30_000);
    await sleep(300);
    expect(r.received).toHaveLength(1);

    healthy = true;
    // Retrying the second delivery sends the first one first.
    const retry = await api(owner, 'POST', `/webhooks/${hook.id}/deliveries/${failed[0].delivery.id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.body.delivery.state).toBe('pending');
    await waitFor('both delivered', () => r.received.length === 3, 5000);
    expect(r.received.slice(1).map((x) => x.json.details.member.firstName)).toEqual(['Retry1', 'Retry2']);
    const after = await waitFor('delivered', async () => {
      const list = await events(hook.id);
      return list.every((e: any) => e.delivery.state === 'delivered') ? list : null;
    });
    expect(after[1].delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 204]);

    const again = await api(owner, 'POST', `/webhooks/${hook.id}/deliveries/${after[1].delivery.id}/retry`);
    expect(again.status).toBe(422);
    expect(again.body.data).toEqual({ delivery: 'delivered' });
    await api(owner, 'DELETE', `/webhooks/${hook.id}`);
  });

  it('a failed test event is sent again at once and answers the result', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 200 } : { status: 503 }));
    const hook = await hookFor(r.url);
    const test = await api(owner, 'POST', `/webhooks/${hook.id}/test`, { message: 'hello' });
    expect(test.body.delivery).toMatchObject({ state: 'failed', attempts: [{ statusCode: 503 }] });
    healthy = true;
    const retry = await api(owner, 'POST', `/webhooks/${hook.id}/deliveries/${test.body.delivery.id}/retry`);
    expect(retry.status).toBe(200);
    expect(retry.body.delivery.state).toBe('delivered');
    expect(retry.body.delivery.attempts.map((a: any) => a.statusCode)).toEqual([503, 200]);
    expect(r.received.map((x) => x.json.details.message)).toEqual(['hello', 'hello']);
    // The same delivery id both times: a receiver drops the duplicate with it.
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    await api(owner, 'DELETE', `/webhooks/${hook.id}`);
  });

  it('refuses a paused webhook (422 naming its state), and is for admins of the account only', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const hook = await hookFor(r.url);
    await newMember();
    const [event] = await waitFor('the attempt', async () => {
      const list = await events(hook.id);
      return list[0]?.delivery.attempts.length === 1 ? list : null;
    });
    const paused = await api(owner, 'PUT', `/webhooks/${hook.id}`, {
      state: 'paused',
      lockVersion: hook.lockVersion,
    });
    expect(paused.status).toBe(200);
    const path = `/webhooks/${hook.id}/deliveries/${event.delivery.id}/retry`;
    const refused = await api(owner, 'POST', path);
    expect(refused.status).toBe(422);
    expect(refused.body.data).toEqual({ state: 'paused' });
    await sleep(300);
    expect(r.received).toHaveLength(1);

    const plain = (await api(owner, 'POST', '/members', { firstName: 'Plain' })).body;
    const key = (await api(owner, 'POST', '/api-keys', { member: plain.id })).body;
    const plainToken = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await api(plainToken, 'POST', path)).status).toBe(403);
    const other = await t.newAccount('Other', 'owner@other-retry.example');
    expect((await api(other.token, 'POST', path)).status).toBe(404);
    expect((await api(owner, 'POST', `/webhooks/${hook.id}/deliveries/999999/retry`)).status).toBe(404);
    const bad = await api(owner, 'POST', `/webhooks/${hook.id}/deliveries/abc/retry`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('deliveryId');
    // A delivery of another webhook is not found under this one.
    const second = await hookFor(r.url);
    expect(
      (await api(owner, 'POST', `/webhooks/${second.id}/deliveries/${event.delivery.id}/retry`)).status,
    ).toBe(404);
    const doc = (await api(owner, 'GET', '/openapi.json')).body;
    expect(
      doc.paths['/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry'].post.responses['202'],
    ).toBeTruthy();
  });
});
