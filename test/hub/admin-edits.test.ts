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
 * What admins change by hand and what clients read back: deleting a booking, correcting and
 * deleting resource logs, the default type of a recorded log, how the last use ended, and the logs
 * of locking and unlocking a resource, each with its webhook event.
 */
describeEachDialect('admin edits of bookings, resource logs and resource state', (dialect) => {
  let db: TestDatabase;
  let t: WebhookHub;
  let owner: string;
  const teardown: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    t = await openWebhookHub(db);
    owner = t.owner.token;
  });
  afterEach(async () => {
    for (const h of await t.hub.ctx.db.selectFrom('webhooks').select('id').execute())
      await t.hub.ctx.db.deleteFrom('webhooks').where('id', '=', h.id).execute();
    for (const close of teardown.splice(0)) await close();
  });
  afterAll(async () => {
    await t?.close();
    await db?.dispose();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  async function ok(res: { statusCode: number; body: string; json(): any }, status = 200) {
    expect(res.statusCode, res.body).toBe(status);
    return status === 204 ? null : res.json();
  }

  async function hook(category: string): Promise<Receiver> {
    const r = await startReceiver();
    teardown.push(() => r.close());
    await ok(await api(owner, 'POST', '/webhooks', { url: r.url, categories: [category] }), 201);
    return r;
  }
  /** Waits for n events, then a little longer to see that no more come. */
  async function events(r: Receiver, n: number) {
    await waitFor(`${n} events`, () => r.received.length >= n, 5000);
    await sleep(300);
    return r.received.map((x) => x.json);
  }

  let members = 0;
  async function member() {
    members++;
    const created = await ok(
      await api(owner, 'POST', '/members', {
        firstName: `Ed${members}`,
        emailAddress: `ed${members}@edits.example`,
      }),
      201,
    );
    const key = await ok(await api(owner, 'POST', '/api-keys', { member: created.id }), 201);
    const token = (await ok(await api(owner, 'GET', `/api-keys/${key.id}/token`))).token as string;
    return { id: created.id as number, token };
  }
  const resource = async (body: Record<string, unknown> = {}) =>
    ok(
      await api(owner, 'POST', '/resources', {
        space: t.owner.spaceId,
        name: 'Lathe',
        controlType: 'machine',
        ...body,
      }),
      201,
    );

  it('DELETE /bookings/{id}: admins only, sends booking_deleted with the booking as it was', async () => {
    const hooked = await hook('booking');
    const lathe = await resource({ canBeBooked: true });
    const mia = await member();
    const other = await member();
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const booking = await ok(
      await api(mia.token, 'POST', '/bookings', {
        resource: lathe.id,
        fromDateTime: `${day}T10:00:00.000Z`,
        untilDateTime: `${day}T11:00:00.000Z`,
      }),
      201,
    );
    // The member who booked may not delete it (they cancel); another member does not see it.
    expect((await api(mia.token, 'DELETE', `/bookings/${booking.id}`)).statusCode).toBe(403);
    expect((await api(other.token, 'DELETE', `/bookings/${booking.id}`)).statusCode).toBe(404);
    await ok(await api(owner, 'GET', `/bookings/${booking.id}`));

    await ok(await api(owner, 'DELETE', `/bookings/${booking.id}`), 204);
    expect((await api(owner, 'GET', `/bookings/${booking.id}`)).statusCode).toBe(404);
    expect((await api(owner, 'DELETE', `/bookings/${booking.id}`)).statusCode).toBe(404);
    // The slot is free again.
    await ok(
      await api(other.token, 'POST', '/bookings', {
        resource: lathe.id,
        fromDateTime: `${day}T10:00:00.000Z`,
        untilDateTime: `${day}T11:00:00.000Z`,
      }),
      201,
    );

    const sent = await events(hooked, 3);
    expect(sent.map((e) => e.type)).toEqual(['booking_created', 'booking_deleted', 'booking_created']);
    expect(sent[1].details.booking).toMatchObject({ id: booking.id, member: mia.id, state: 'confirmed' });
    expect(sent[1].details.resource).toMatchObject({ id: lathe.id });
    expect(sent[1].details.member).toMatchObject({ id: mia.id });
  });

  it('POST /resource-logs without type records usage (allowed); lastUsed says how it stopped', async () => {
    const lathe = await resource();
    const mia = await member();
    expect((await ok(await api(owner, 'GET', `/resources/${lathe.id}`))).lastUsed).toBeNull();

    const done = await ok(
      await api(owner, 'POST', '/resource-logs', {
        resource: lathe.id,
        member: mia.id,
        createdAt: '2026-01-10T10:00:00.000Z',
        stoppedAt: '2026-01-10T11:00:00.000Z',
        stopType: 'normal',
      }),
      201,
    );
    expect(done).toMatchObject({
      type: 'allowed',
      member: mia.id,
      originalMember: mia.id,
      stopType: 'normal',
    });
    expect((await ok(await api(owner, 'GET', `/resources/${lathe.id}`))).lastUsed).toEqual({
      id: done.id,
      at: '2026-01-10T10:00:00.000Z',
      member: mia.id,
      stopType: 'normal',
    });

    // A session still running: lastUsed is that one, with no stopType yet (in the list too).
    const running = await ok(
      await api(owner, 'POST', '/resource-logs', { resource: lathe.id, member: mia.id }),
      201,
    );
    expect(running).toMatchObject({ type: 'allowed', stoppedAt: null, stopType: null });
    const listed = (await ok(await api(owner, 'GET', `/resources?q=lathe`))).find(
      (r: { id: number }) => r.id === lathe.id,
    );
    expect(listed.lastUsed).toMatchObject({ id: running.id, stopType: null });

    // A stopped-before-started log is refused and nothing is stored.
    const before = (await api(owner, 'GET', `/resource-logs?resource=${lathe.id}`)).headers['x-total-count'];
    const bad = await api(owner, 'POST', '/resource-logs', {
      resource: lathe.id,
      createdAt: '2026-01-10T10:00:00.000Z',
      stoppedAt: '2026-01-10T09:00:00.000Z',
    });
    expect(bad.statusCode).toBe(422);
    expect((await api(owner, 'GET', `/resource-logs?resource=${lathe.id}`)).headers['x-total-count']).toBe(
      before,
    );
  });

  it('PUT /resource-logs/{id} corrects a log: originalMember kept, lockVersion checked, resourceLog_updated sent', async () => {
    const lathe = await resource();
    const mia = await member();
    const bo = await member();
    const log = await ok(
      await api(owner, 'POST', '/resource-logs', {
        resource: lathe.id,
        member: mia.id,
        createdAt: '2026-02-01T09:00:00.000Z',
      }),
      201,
    );
    const hooked = await hook('resourceLog');

    // Members may not correct their own logs; bad input names the field; both change nothing.
    expect(
      (await api(mia.token, 'PUT', `/resource-logs/${log.id}`, { notes: 'mine', lockVersion: 1 })).statusCode,
    ).toBe(403);
    const bad = await api(owner, 'PUT', `/resource-logs/${log.id}`, { stopType: 'sideways', lockVersion: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/stopType/);
    const unknown = await api(owner, 'PUT', `/resource-logs/${log.id}`, { member: 999_999, lockVersion: 1 });
    expect(unknown.statusCode).toBe(422);
    expect((await ok(await api(owner, 'GET', `/resource-logs/${log.id}`))).lockVersion).toBe(1);

    // The member actually at the machine was Bo; the session ended at 10:30.
    const fixed = await ok(
      await api(owner, 'PUT', `/resource-logs/${log.id}`, {
        member: bo.id,
        stoppedAt: '2026-02-01T10:30:00.000Z',
        stopType: 'normal',
        notes: 'Mia used Bo’s card',
        lockVersion: 1,
      }),
    );
    expect(fixed).toMatchObject({
      member: bo.id,
      originalMember: mia.id,
      stoppedAt: '2026-02-01T10:30:00.000Z',
      stopType: 'normal',
      notes: 'Mia used Bo’s card',
      lockVersion: 2,
      updatedBy: t.owner.memberId,
    });
    const stale = await api(owner, 'PUT', `/resource-logs/${log.id}`, { notes: 'again', lockVersion: 1 });
    expect(stale.statusCode).toBe(409);
    // Bo now sees it among his logs; Mia no longer does.
    expect((await api(bo.token, 'GET', `/resource-logs/${log.id}`)).statusCode).toBe(200);
    expect((await api(mia.token, 'GET', `/resource-logs/${log.id}`)).statusCode).toBe(404);

    const sent = await events(hooked, 1);
    expect(sent.map((e) => e.type)).toEqual(['resourceLog_updated']);
    expect(sent[0].details.log).toMatchObject({
      id: log.id,
      member: bo.id,
      originalMember: mia.id,
      lockVersion: 2,
    });
    expect(sent[0].details.member).toMatchObject({ id: bo.id });
  });

  it('DELETE /resource-logs/{id}: admins only, not a running session, sends resourceLog_deleted, and lastUsed falls back', async () => {
    const lathe = await resource();
    const mia = await member();
    const first = await ok(
      await api(owner, 'POST', '/resource-logs', {
        resource: lathe.id,
        member: mia.id,
        createdAt: '2026-03-01T09:00:00.000Z',
        stoppedAt: '2026-03-01T10:00:00.000Z',
        stopType: 'automatic',
      }),
      201,
    );
    const second = await ok(
      await api(owner, 'POST', '/resource-logs', { resource: lathe.id, member: mia.id }),
      201,
    );
    expect((await ok(await api(owner, 'GET', `/resources/${lathe.id}`))).lastUsed.id).toBe(second.id);
    const hooked = await hook('resourceLog');

    expect((await api(mia.token, 'DELETE', `/resource-logs/${second.id}`)).statusCode).toBe(403);
    // A session still running stays: its bridge stops it.
    const running = await api(owner, 'DELETE', `/resource-logs/${second.id}`);
    expect(running.statusCode).toBe(409);
    expect(running.json().data).toMatchObject({ runningSession: true });
    await ok(await api(owner, 'GET', `/resource-logs/${second.id}`));
    await ok(
      await api(owner, 'PUT', `/resource-logs/${second.id}`, {
        stoppedAt: new Date().toISOString(),
        stopType: 'normal',
        lockVersion: 1,
      }),
    );
    await ok(await api(owner, 'DELETE', `/resource-logs/${second.id}`), 204);
    expect((await api(owner, 'GET', `/resource-logs/${second.id}`)).statusCode).toBe(404);
    expect((await ok(await api(owner, 'GET', `/resources/${lathe.id}`))).lastUsed).toMatchObject({
      id: first.id,
      stopType: 'automatic',
    });

    const sent = await events(hooked, 2);
    expect(sent.map((e) => e.type)).toEqual(['resourceLog_updated', 'resourceLog_deleted']);
    expect(sent[1].details.log).toMatchObject({
      id: second.id,
      resource: lathe.id,
      member: mia.id,
      stopType: 'normal',
    });
    expect(sent[1].details.resource).toMatchObject({ id: lathe.id });
  });

  it('locking and unlocking a resource writes resourceDisabled and resourceEnabled logs with their events', async () => {
    const lathe = await resource();
    const logs = await hook('resourceLog');
    const changes = await hook('resource');

    const locked = await ok(
      await api(owner, 'PUT', `/resources/${lathe.id}`, { state: 'locked', lockVersion: 1 }),
    );
    expect(locked.state).toBe('locked');
    // A change that leaves the state alone writes no log.
    await ok(
      await api(owner, 'PUT', `/resources/${lathe.id}`, {
        name: 'Old lathe',
        state: 'locked',
        lockVersion: 2,
      }),
    );
    await ok(await api(owner, 'PUT', `/resources/${lathe.id}`, { state: 'active', lockVersion: 3 }));

    const written = await ok(await api(owner, 'GET', `/resource-logs?resource=${lathe.id}&order=asc`));
    expect(written.map((l: { type: string }) => l.type)).toEqual(['resourceDisabled', 'resourceEnabled']);
    expect(written[0]).toMatchObject({ member: t.owner.memberId, updatedBy: t.owner.memberId });
    expect(written[0].stoppedAt).toBe(written[0].createdAt);
    // Locking is not a use of the resource.
    expect((await ok(await api(owner, 'GET', `/resources/${lathe.id}`))).lastUsed).toBeNull();

    const logEvents = await events(logs, 2);
    expect(logEvents.map((e) => [e.type, e.details.log.type])).toEqual([
      ['resourceLog_created', 'resourceDisabled'],
      ['resourceLog_created', 'resourceEnabled'],
    ]);
    expect(logEvents[0].details.resource).toMatchObject({ id: lathe.id, state: 'locked' });
    const resourceEvents = await events(changes, 3);
    expect(resourceEvents.map((e) => [e.type, e.details.resource.state])).toEqual([
      ['resource_updated', 'locked'],
      ['resource_updated', 'locked'],
      ['resource_updated', 'active'],
    ]);
  });

  it('a refused change of billing settings by the space path writes nothing, not even the default settings', async () => {
    // A space made before billing settings existed (as `init` makes its first space).
    const db = t.hub.ctx.db;
    await db.deleteFrom('space_billing_settings').where('space', '=', t.owner.spaceId).execute();
    const count = async () =>
      (
        await db
          .selectFrom('space_billing_settings')
          .select('id')
          .where('space', '=', t.owner.spaceId)
          .execute()
      ).length;
    const mia = await member();
    const path = `/spaces/${t.owner.spaceId}/billing-settings`;
    expect((await api(mia.token, 'PUT', path, { currency: 'USD', lockVersion: 1 })).statusCode).toBe(403);
    expect((await api(owner, 'PUT', path, { currency: 'USD', lockVersion: 7 })).statusCode).toBe(409);
    expect(await count()).toBe(0);
    // The first change made with the new settings' version goes through.
    expect(await ok(await api(owner, 'PUT', path, { currency: 'USD', lockVersion: 1 }))).toMatchObject({
      currency: 'USD',
      lockVersion: 2,
    });
    expect(await count()).toBe(1);
  });
});
