import { Webhook } from 'standardwebhooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { retryOnConflict } from '../../hub/src/db/crud.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../hub/src/db/outbox.js';
import { describeEachDialect, freshDatabase, type TestDatabase } from '../support/dialects.js';
import {
  openWebhookHub,
  type Receiver,
  sleep,
  startReceiver,
  validSignature,
  waitFor,
  type WebhookHub,
} from './webhooks-helpers.js';

describeEachDialect('webhooks: signed, durable delivery', (dialect) => {
  let db: TestDatabase;
  let t: WebhookHub;
  let owner: string;
  const teardown: (() => Promise<void>)[] = [];
  const receiver = async (respond?: Receiver['respond']) => {
    const r = await startReceiver(respond);
    teardown.push(() => r.close());
    return r;
  };

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    t = await openWebhookHub(db);
    owner = t.owner.token;
  });
  afterEach(async () => {
    // Delete this test's webhooks so later tests see only their own deliveries.
    const hooks = await t.hub.ctx.db.selectFrom('webhooks').select('id').execute();
    for (const h of hooks) {
      // The delivery worker may be holding these rows (PostgreSQL reports a deadlock): retry.
      await retryOnConflict(() => t.hub.ctx.db.deleteFrom('webhooks').where('id', '=', h.id).execute());
    }
    for (const close of teardown.splice(0)) await close();
  });
  afterAll(async () => {
    await t?.close();
    await db?.dispose();
  });

  const createWebhook = async (token: string, body: Record<string, unknown>) =>
    t.call(token, { method: 'POST', url: '/api/v1/webhooks', payload: body });
  const hookFor = async (url: string, extra: Record<string, unknown> = {}, token = owner) => {
    const res = await createWebhook(token, { url, categories: ['member'], label: 'test', ...extra });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  let memberCount = 0;
  const newMember = async (token = owner) => {
    memberCount++;
    const res = await t.call(token, {
      method: 'POST',
      url: '/api/v1/members',
      payload: {
        firstName: `Ada${memberCount}`,
        lastName: 'Lovelace',
        emailAddress: `ada${memberCount}@x.example`,
      },
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const events = async (hookId: number, query = '') =>
    (await t.call(owner, { method: 'GET', url: `/api/v1/webhooks/${hookId}/events${query}` })).json();

  it('signs in the Standard Webhooks format, which the standardwebhooks library verifies, and keeps the old header', async () => {
    const r = await receiver();
    const hook = await hookFor(r.url);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await newMember();
    await waitFor('the delivery', () => r.received.length === 1, 2000);
    const got = r.received[0];
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    expect(headers['webhook-id']).toBe(`msg_${got.headers['x-makerspace-delivery']}`);
    expect(new Webhook(hook.secret).verify(got.body, headers)).toMatchObject({ type: 'member_created' });
    expect(() => new Webhook(hook.secret).verify(`${got.body} `, headers)).toThrow();
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(got.body, headers),
    ).toThrow();
    // The old header, for receivers not yet moved (one release).
    expect(validSignature(hook.secret, got)).toBe(true);
  });

  it('delivers member_created within a second of POST /members, signed, and lists it with status 200', async () => {
    const r = await receiver();
    const hook = await hookFor(r.url);
    expect(hook.secret).toMatch(/^whsec_/);
    const started = Date.now();
    const member = await newMember();
    await waitFor('the delivery', () => r.received.length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    const got = r.received[0];
    expect(got.headers['x-makerspace-event']).toBe('member_created');
    expect(got.headers['content-type']).toBe('application/json');
    expect(validSignature(hook.secret, got)).toBe(true);
    expect(validSignature('whsec_wrong', got)).toBe(false);
    expect(got.json).toMatchObject({
      type: 'member_created',
      details: { member: { id: member.id, firstName: member.firstName } },
    });
    expect(typeof got.json.id).toBe('number');
    expect(got.json.createdAt).toMatch(/Z$/);

    const list = await waitFor('the recorded attempt', async () => {
      const l = await events(hook.id);
      return l[0]?.delivery.state === 'delivered' ? l : null;
    });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: got.json.id, type: 'member_created' });
    expect(list[0].delivery.id).toBe(Number(got.headers['x-makerspace-delivery']));
    expect(list[0].delivery.attempts).toHaveLength(1);
    expect(list[0].delivery.attempts[0]).toMatchObject({
      statusCode: 200,
      error: null,
      responseExcerpt: 'ok',
    });
    expect(list[0].delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('stores a webhook URL sealed: its secret is not in the database, admins see it, deliveries reach it', async () => {
    const r = await receiver();
    const url = `${r.url}?secret=s3cr3t-in-the-query`;
    const hook = await hookFor(url, { label: 'Sealed' });
    expect(hook.url).toBe(url);
    const row = await t.hub.ctx.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('s3cr3t');
    expect(row.urlHost).toBe('127.0.0.1');
    expect(t.hub.ctx.tokens.open(row.urlEncrypted)).toBe(url);
    // Listed and read back in full for admins, and found by its host.
    const list = await t.call(owner, { method: 'GET', url: '/api/v1/webhooks?q=127.0.0.1' });
    expect(list.json().map((h: { url: string }) => h.url)).toEqual([url]);
    expect((await t.call(owner, { method: 'GET', url: `/api/v1/webhooks/${hook.id}` })).json().url).toBe(url);
    await newMember();
    await waitFor('the delivery', () => r.received.length === 1, 2000);
    expect(r.received[0].path).toBe('/hook?secret=s3cr3t-in-the-query');
    // A new URL is sealed again.
    const changed = `${r.url}?secret=another-one`;
    const put = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/webhooks/${hook.id}`,
      payload: { url: changed, lockVersion: hook.lockVersion },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().url).toBe(changed);
    const after = await t.hub.ctx.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(after)).not.toContain('another-one');
    expect(t.hub.ctx.tokens.open(after.urlEncrypted)).toBe(changed);
  });

  it('emits member_updated and member_deleted with the member record', async () => {
    const r = await receiver();
    await hookFor(r.url);
    const member = await newMember();
    const put = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/members/${member.id}`,
      payload: { city: 'Vienna', lockVersion: member.lockVersion },
    });
    expect(put.statusCode).toBe(200);
    const del = await t.call(owner, { method: 'DELETE', url: `/api/v1/members/${member.id}` });
    expect(del.statusCode).toBe(204);
    await waitFor('three deliveries', () => r.received.length === 3);
    expect(r.received.map((x) => x.json.type)).toEqual([
      'member_created',
      'member_updated',
      'member_deleted',
    ]);
    expect(r.received[1].json.details.member.city).toBe('Vienna');
    expect(r.received[2].json.details.member.id).toBe(member.id);
  });

  it('retries a receiver that answers 500 three times: four attempts, one delivery', async () => {
    const r = await receiver((n) =>
      n < 3 ? { status: 500, body: 'broken' } : { status: 200, body: 'fine' },
    );
    const hook = await hookFor(r.url);
    await newMember();
    await waitFor('four attempts', () => r.received.length === 4);
    const ids = new Set(r.received.map((x) => x.headers['x-makerspace-delivery']));
    expect(ids.size).toBe(1);
    const list = await waitFor('the delivered state', async () => {
      const l = await events(hook.id);
      return l[0]?.delivery.state === 'delivered' ? l : null;
    });
    expect(list).toHaveLength(1);
    expect(list[0].delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 200]);
    expect(list[0].delivery.attempts[0].responseExcerpt).toBe('broken');
    await sleep(300);
    expect(r.received).toHaveLength(4);
    // A success ends the failing run.
    const after = (await t.call(owner, { method: 'GET', url: `/api/v1/webhooks/${hook.id}` })).json();
    expect(after.state).toBe('active');
    expect(after.failingSince).toBeNull();
  });

  it("sends nothing to another account's webhook or to one without the category", async () => {
    const other = await t.newAccount('Other space', 'owner@other.example');
    const rOther = await receiver();
    const rResources = await receiver();
    const rMine = await receiver();
    await hookFor(rOther.url, {}, other.token);
    await hookFor(rResources.url, { categories: ['resource', 'memberKey'] });
    await hookFor(rMine.url);
    await newMember();
    await waitFor('the subscribed delivery', () => rMine.received.length === 1);
    await sleep(400);
    expect(rOther.received).toHaveLength(0);
    expect(rResources.received).toHaveLength(0);
  });

  it('a rolled-back change sends nothing', async () => {
    const r = await receiver();
    await hookFor(r.url);
    const before = await t.hub.ctx.db.selectFrom('webhook_deliveries').select('id').execute();
    await expect(
      t.hub.ctx.events.transaction(async (trx) => {
        await emitEvent(trx, {
          account: t.owner.accountId,
          type: 'member_updated',
          details: { member: { id: 1 } },
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // A refused change through the API (duplicate e-mail) sends nothing either.
    const m = await newMember();
    await waitFor('the first delivery', () => r.received.length === 1);
    const dup = await t.call(owner, {
      method: 'POST',
      url: '/api/v1/members',
      payload: { firstName: 'Twin', emailAddress: m.emailAddress },
    });
    expect(dup.statusCode).toBe(422);
    await sleep(300);
    expect(r.received).toHaveLength(1);
    const afterRows = await t.hub.ctx.db.selectFrom('webhook_deliveries').select('id').execute();
    expect(afterRows.length).toBe(before.length + 1);
  });

  it('queues events while paused and delivers them in order when active again', async () => {
    const r = await receiver((n) => ({ status: 200, delayMs: n === 0 ? 150 : 0 }));
    const hook = await hookFor(r.url, { state: 'paused' });
    const created = [await newMember(), await newMember(), await newMember()];
    await sleep(400);
    expect(r.received).toHaveLength(0);
    const pending = await events(hook.id, '?state=pending');
    expect(pending).toHaveLength(3);
    const put = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/webhooks/${hook.id}`,
      payload: { state: 'active', lockVersion: hook.lockVersion },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().state).toBe('active');
    expect(put.json()).not.toHaveProperty('secret');
    await waitFor('the queued events', () => r.received.length === 3);
    expect(r.received.map((x) => x.json.details.member.id)).toEqual(created.map((m) => m.id));
    // Strictly one after the other: the second was sent only after the (slow) first was answered.
    expect(r.received[1].at - r.received[0].at).toBeGreaterThanOrEqual(140);
  });

  it('POST /webhooks/{id}/events sends a test event now and answers its result (also /test)', async () => {
    const r = await receiver((n) =>
      n === 0 ? { status: 200, body: 'got it' } : { status: 503, body: 'down' },
    );
    const hook = await hookFor(r.url, { state: 'paused' });
    const res = await t.call(owner, {
      method: 'POST',
      url: `/api/v1/webhooks/${hook.id}/events`,
      payload: { message: 'Hello from the test' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      type: 'test',
      details: { message: 'Hello from the test', createdBy: t.owner.memberId },
      delivery: { state: 'delivered' },
    });
    expect(body.delivery.attempts[0]).toMatchObject({ statusCode: 200, responseExcerpt: 'got it' });
    expect(r.received).toHaveLength(1);
    expect(r.received[0].headers['x-makerspace-event']).toBe('test');
    expect(validSignature(hook.secret, r.received[0])).toBe(true);

    const alias = await t.call(owner, { method: 'POST', url: `/api/v1/webhooks/${hook.id}/test` });
    expect(alias.statusCode).toBe(200);
    expect(alias.json().delivery).toMatchObject({ state: 'failed' });
    expect(alias.json().delivery.attempts[0]).toMatchObject({ statusCode: 503, responseExcerpt: 'down' });
    // A failed test is not retried.
    await sleep(300);
    expect(r.received).toHaveLength(2);
    expect((await events(hook.id)).map((e: any) => e.type)).toEqual(['test', 'test']);
  });

  it('refuses 169.254.169.254 and 10.0.0.1 with 422 at create time', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/hook',
      'https://[fd00:ec2::254]/',
    ]) {
      const res = await createWebhook(owner, { url, categories: ['member'] });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().message).toMatch(/public addresses only/);
      expect(res.json().data).toEqual({ unsafeUrl: true });
    }
    const hook = await hookFor('http://127.0.0.1:9/nothing');
    const put = await t.call(owner, {
      method: 'PUT',
      url: `/api/v1/webhooks/${hook.id}`,
      payload: { url: 'http://192.168.1.1/', lockVersion: hook.lockVersion },
    });
    expect(put.statusCode).toBe(422);
    const list = (await t.call(owner, { method: 'GET', url: '/api/v1/webhooks' })).json();
    expect(list.map((h: any) => h.url)).toEqual(['http://127.0.0.1:9/nothing']);
  });

  it('does not follow redirects: a 302 is a failed attempt', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const hook = await hookFor(r.url);
    await newMember();
    const list = await waitFor('a recorded attempt', async () => {
      const l = await events(hook.id);
      return l[0]?.delivery.attempts.length ? l : null;
    });
    expect(list[0].delivery.state).toBe('pending');
    expect(list[0].delivery.attempts[0]).toMatchObject({
      statusCode: 302,
      error: 'redirects are not followed',
    });
    expect(target.received).toHaveLength(0);
  });

  it('a slow receiver delays neither the API nor other webhooks', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 2500 }));
    const fast = await receiver();
    await hookFor(slow.url);
    await hookFor(fast.url);
    const started = Date.now();
    await newMember();
    expect(Date.now() - started).toBeLessThan(500);
    await waitFor('the fast delivery', () => fast.received.length === 1, 1000);
    expect(slow.received).toHaveLength(1);
  });

  describe('management', () => {
    it('shows the secret only on create and on rotation; later deliveries use the new one', async () => {
      const r = await receiver();
      const hook = await hookFor(r.url, {
        categories: ['member', 'member', 'booking'],
        notes: '<p>hi</p><script>x</script>',
      });
      expect(hook.categories).toEqual(['member', 'booking']);
      expect(hook.notes).toBe('<p>hi</p>');
      const got = (await t.call(owner, { method: 'GET', url: `/api/v1/webhooks/${hook.id}` })).json();
      expect(got).not.toHaveProperty('secret');
      expect(got).not.toHaveProperty('secretEncrypted');
      const rotated = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/webhooks/${hook.id}`,
        payload: { rotateSecret: true, lockVersion: hook.lockVersion },
      });
      expect(rotated.statusCode).toBe(200);
      const secret = rotated.json().secret;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(hook.secret);
      const stale = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/webhooks/${hook.id}`,
        payload: { label: 'x', lockVersion: hook.lockVersion },
      });
      expect(stale.statusCode).toBe(409);
      await newMember();
      await waitFor('the delivery', () => r.received.length === 1);
      expect(validSignature(secret, r.received[0])).toBe(true);
      expect(validSignature(hook.secret, r.received[0])).toBe(false);
    });

    it('lists with filters and q, refuses bad bodies, and is for admins of the account only', async () => {
      const a = await hookFor('http://127.0.0.1:9/a', { label: 'Door log', categories: ['resourceLog'] });
      await hookFor('http://127.0.0.1:9/b', { label: 'CRM sync', state: 'paused' });
      const list = async (q: string) =>
        (await t.call(owner, { method: 'GET', url: `/api/v1/webhooks${q}` })).json().map((h: any) => h.label);
      expect(await list('')).toEqual(['Door log', 'CRM sync']);
      expect(await list('?state=paused')).toEqual(['CRM sync']);
      expect(await list('?category=resourceLog')).toEqual(['Door log']);
      expect(await list('?category=resource')).toEqual([]);
      expect(await list('?q=crm')).toEqual(['CRM sync']);

      const bad = [
        { url: 'http://127.0.0.1:9/', categories: ['nonsense'] },
        { url: 'http://127.0.0.1:9/', categories: [] },
        { url: 'http://127.0.0.1:9/', categories: ['member'], unknownField: 1 },
        { url: 'http://127.0.0.1:9/', categories: ['member'], state: 'failing' },
      ];
      for (const body of bad)
        expect((await createWebhook(owner, body)).statusCode, JSON.stringify(body)).toBe(400);
      expect(
        (await createWebhook(owner, { url: 'ftp://127.0.0.1/', categories: ['member'] })).statusCode,
      ).toBe(422);
      expect((await createWebhook(owner, { url: 'not a url', categories: ['member'] })).statusCode).toBe(422);

      const other = await t.newAccount('Third space', 'owner@third.example');
      expect((await t.call(other.token, { method: 'GET', url: `/api/v1/webhooks/${a.id}` })).statusCode).toBe(
        404,
      );
      expect(
        (await t.call(other.token, { method: 'GET', url: `/api/v1/webhooks/${a.id}/events` })).statusCode,
      ).toBe(404);
      expect((await t.call(other.token, { method: 'GET', url: '/api/v1/webhooks' })).json()).toEqual([]);

      const plain = await newMember();
      const key = await t.call(owner, {
        method: 'POST',
        url: '/api/v1/api-keys',
        payload: { member: plain.id },
      });
      const token = (
        await t.call(owner, { method: 'GET', url: `/api/v1/api-keys/${key.json().id}/token` })
      ).json().token;
      expect((await t.call(token, { method: 'GET', url: '/api/v1/webhooks' })).statusCode).toBe(403);
      expect(
        (await createWebhook(token, { url: 'http://127.0.0.1:9/', categories: ['member'] })).statusCode,
      ).toBe(403);

      expect((await t.call(owner, { method: 'DELETE', url: `/api/v1/webhooks/${a.id}` })).statusCode).toBe(
        204,
      );
      expect((await t.call(owner, { method: 'GET', url: `/api/v1/webhooks/${a.id}` })).statusCode).toBe(404);
    });
  });
});

describeEachDialect('webhooks: failing receivers are deactivated', (dialect) => {
  let db: TestDatabase;
  let t: WebhookHub;
  let r: Receiver;
  beforeAll(async () => {
    db = await freshDatabase(dialect);
    t = await openWebhookHub(db, randomBytes(32), {
      pollIntervalMs: 50,
      retryBaseMs: 30,
      retryMaxMs: 60,
      failingAfter: 2,
      deactivateAfterMs: 400,
    });
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
    await db?.dispose();
  });

  it('goes failing, then deactivated; later events queue and go out in order once reactivated', async () => {
    let healthy = false;
    r = await startReceiver(() => (healthy ? { status: 204 } : { status: 500 }));
    const hook = (
      await t.call(t.owner.token, {
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: r.url, categories: ['member'] },
      })
    ).json();
    const state = async () =>
      (await t.call(t.owner.token, { method: 'GET', url: `/api/v1/webhooks/${hook.id}` })).json();
    const post = (i: number) =>
      t.call(t.owner.token, { method: 'POST', url: '/api/v1/members', payload: { firstName: `Queued${i}` } });
    await post(0);
    await waitFor('failing', async () => (await state()).state === 'failing');
    expect((await state()).failingSince).not.toBeNull();
    const deactivated = await waitFor('deactivated', async () => {
      const s = await state();
      return s.state === 'deactivated' ? s : null;
    });
    const attemptsSoFar = r.received.length;
    await post(1);
    await post(2);
    await sleep(300);
    expect(r.received.length).toBe(attemptsSoFar);

    healthy = true;
    const put = await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/webhooks/${hook.id}`,
      payload: { state: 'active', lockVersion: deactivated.lockVersion },
    });
    expect(put.statusCode).toBe(200);
    await waitFor('the queue', () => r.received.length === attemptsSoFar + 3);
    const delivered = r.received.slice(attemptsSoFar).map((x) => x.json.details.member.firstName);
    expect(delivered).toEqual(['Queued0', 'Queued1', 'Queued2']);
    expect((await state()).state).toBe('active');
  });
});

describe('webhooks: deliveries survive a hub restart (SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-webhooks-'));
  const database = { url: join(dir, 'hub.sqlite') };
  const secret = randomBytes(32);
  let t: WebhookHub | undefined;
  let r: Receiver | undefined;
  afterAll(async () => {
    await t?.close();
    await r?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('retries after close and reopen on the same database', async () => {
    let up = false;
    r = await startReceiver(() => (up ? { status: 200 } : { status: 500 }));
    // Slow retries: the second attempt is due only after the restart.
    const tuning = { pollIntervalMs: 50, retryBaseMs: 600, retryMaxMs: 600 };
    t = await openWebhookHub(database, secret, tuning);
    const owner = t.owner;
    const hook = (
      await t.call(owner.token, {
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: r.url, categories: ['member'] },
      })
    ).json();
    const res = await t.call(owner.token, {
      method: 'POST',
      url: '/api/v1/members',
      payload: { firstName: 'Durable' },
    });
    expect(res.statusCode).toBe(201);
    await waitFor('the first attempt', () => r?.received.length === 1);
    await sleep(50);
    await t.close();
    t = undefined;

    up = true;
    t = await openWebhookHub(database, secret, tuning, owner);
    await waitFor('the retry after the restart', () => r?.received.length === 2, 5000);
    expect(r.received[1].json.details.member.firstName).toBe('Durable');
    expect(r.received[1].headers['x-makerspace-delivery']).toBe(
      r.received[0].headers['x-makerspace-delivery'],
    );
    const list = await waitFor('the delivered state', async () => {
      const l = (
        await t?.call(owner.token, { method: 'GET', url: `/api/v1/webhooks/${hook.id}/events` })
      )?.json();
      return l?.[0]?.delivery.state === 'delivered' ? l : null;
    });
    expect(list[0].delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
  });
});

describe('webhooks: old finished deliveries are forgotten (SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-webhooks-prune-'));
  const database = { url: join(dir, 'hub.sqlite') };
  const secret = randomBytes(32);
  let t: WebhookHub | undefined;
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('drops delivered events older than the retention time at start, keeps queued ones', async () => {
    t = await openWebhookHub(database, secret);
    const owner = t.owner;
    const hook = (
      await t.call(owner.token, {
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: 'http://127.0.0.1:9/', categories: ['member'], state: 'paused' },
      })
    ).json();
    const db = t.hub.ctx.db;
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    for (const state of ['delivered', 'pending']) {
      const event = await db
        .insertInto('webhook_events')
        .values({ account: owner.accountId, type: 'member_updated', details: '{}', createdAt: old })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('webhook_deliveries')
        .values({ account: owner.accountId, webhook: hook.id, event: event.id, state, createdAt: old })
        .execute();
    }
    await t.close();
    t = await openWebhookHub(database, secret, undefined, owner);
    const left = await waitFor('the prune', async () => {
      const rows = await t?.hub.ctx.db.selectFrom('webhook_deliveries').select('state').execute();
      return rows?.length === 1 ? rows : null;
    });
    expect(left).toEqual([{ state: 'pending' }]);
    const events = await t.hub.ctx.db.selectFrom('webhook_events').select('id').execute();
    expect(events).toHaveLength(1);
  });
});
