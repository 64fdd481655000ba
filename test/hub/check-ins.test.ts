import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

// Check-ins at entrance doors and the kiosk, closing-time check-outs and the occupancy limit.
describeEachDialect('presence: check-ins at entrances and the kiosk', (dialect) => {
  let t: TestHub;
  let owner: string;
  let everything: number;
  // Friday 27 November 2026, 10:00 UTC; tests move it.
  let now = new Date('2026-11-27T10:00:00.000Z');
  const clock = { now: () => now };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock, settings: { webhookAllowInsecure: true } });
    owner = t.owner.token;
    everything = (await api(owner, 'POST', '/packages', { name: 'Full membership' })).json().id;
    await api(owner, 'POST', `/packages/${everything}/permissions`, { type: 'everything' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  /** A new space of the owner's account in UTC, with these opening hours. */
  async function space(hours: { dayOfWeek: number; fromTime: string; untilTime: string }[], limit?: number) {
    const s = (
      await api(owner, 'POST', '/spaces', {
        name: `Space ${randomUUID().slice(0, 8)}`,
        timezone: 'UTC',
        ...(limit ? { occupancyLimit: limit } : {}),
      })
    ).json();
    expect(s.occupancyLimit ?? null).toBe(limit ?? null);
    expect((await api(owner, 'PUT', `/spaces/${s.id}/opening-hours`, hours)).statusCode).toBe(200);
    return s.id as number;
  }

  async function entrance(spaceId: number, body: Record<string, unknown> = {}) {
    const r = (
      await api(owner, 'POST', '/resources', {
        space: spaceId,
        name: 'Front door',
        controlType: 'door',
        entrance: true,
        ...body,
      })
    ).json();
    expect(r.entrance).toBe(true);
    await api(owner, 'PUT', `/resources/${r.id}/bridge`, {});
    const apiKey = (await api(owner, 'GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey as string;
    return { id: r.id as number, apiKey };
  }

  /** A member of the space with a package, a key card and an API token. */
  async function member(spaceId: number, card: string, extra: Record<string, unknown> = {}) {
    const m = (
      await api(owner, 'POST', '/members', {
        firstName: 'Ada',
        lastName: card,
        space: spaceId,
        emailAddress: `ada${randomUUID()}@test.example`,
        ...extra,
      })
    ).json();
    await api(owner, 'POST', `/members/${m.id}/packages`, { package: everything });
    await api(owner, 'PUT', `/members/${m.id}/key`, { type: 'em4102', token: card });
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
    return { id: m.id as number, token };
  }

  const tap = (door: { apiKey: string }, card: string) =>
    api(door.apiKey, 'POST', '/bridge/access', { keys: [{ type: 'em4102', token: card }] });

  const allWeek = (fromTime: string, untilTime: string) =>
    [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, fromTime, untilTime }));

  it('a tap at an entrance checks in, the next tap checks out, and the door opens both times', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const s = await space(allWeek('08:00', '22:00'));
    const door = await entrance(s);
    const ada = await member(s, 'C0FFEE0001');

    const first = await tap(door, 'C0FFEE0001');
    expect(first.json()).toMatchObject({
      type: 'allowed',
      stopped: true,
      messages: expect.arrayContaining(['Checked in']),
    });
    const open = (await api(owner, 'GET', `/check-ins?space=${s}&state=in`)).json();
    expect(open).toEqual([
      expect.objectContaining({
        member: ada.id,
        space: s,
        state: 'in',
        checkedInAt: '2026-11-27T10:00:00.000Z',
        checkInMethod: 'tap',
        checkInResource: door.id,
        checkedOutAt: null,
      }),
    ]);
    expect((await api(ada.token, 'GET', `/presence?space=${s}`)).json()).toMatchObject({
      checkedIn: 1,
      people: [],
      mine: { id: open[0].id },
    });

    now = new Date('2026-11-27T12:30:00.000Z');
    const second = await tap(door, 'C0FFEE0001');
    expect(second.json()).toMatchObject({
      type: 'allowed',
      stopped: true,
      messages: expect.arrayContaining(['Checked out']),
    });
    const stay = (await api(owner, 'GET', `/check-ins/${open[0].id}`)).json();
    expect(stay).toMatchObject({
      state: 'out',
      checkedOutAt: '2026-11-27T12:30:00.000Z',
      checkOutMethod: 'tap',
      checkOutResource: door.id,
    });
    expect((await api(owner, 'GET', `/check-ins?space=${s}&state=in`)).json()).toEqual([]);

    // A door that is not an entrance opens without checking anyone in.
    const side = (
      await api(owner, 'POST', '/resources', { space: s, name: 'Side door', controlType: 'door' })
    ).json();
    await api(owner, 'PUT', `/resources/${side.id}/bridge`, {});
    const sideKey = (await api(owner, 'GET', `/resources/${side.id}/bridge/api-key`)).json().apiKey;
    const sideTap = (await tap({ apiKey: sideKey }, 'C0FFEE0001')).json();
    expect(sideTap.type).toBe('allowed');
    expect(sideTap.messages ?? []).not.toContain('Checked in');
    expect((await api(owner, 'GET', `/check-ins?space=${s}&state=in`)).json()).toEqual([]);
  });

  it('checks out everyone still in at closing time (local midnight without opening hours)', async () => {
    now = new Date('2026-11-27T15:00:00.000Z');
    const s = await space(allWeek('09:00', '18:00'));
    const door = await entrance(s);
    const ada = await member(s, 'C0FFEE0002');
    const bob = await member(s, 'C0FFEE0003');
    await tap(door, 'C0FFEE0002');
    await api(bob.token, 'POST', '/check-ins', { space: s });
    expect((await api(owner, 'GET', `/check-ins?space=${s}&state=in`)).json()).toHaveLength(2);

    now = new Date('2026-11-27T17:59:00.000Z');
    await t.hub.closingTimes.check();
    expect((await api(owner, 'GET', `/check-ins?space=${s}&state=in`)).json()).toHaveLength(2);

    now = new Date('2026-11-27T18:01:00.000Z');
    await t.hub.closingTimes.check();
    const out = (await api(owner, 'GET', `/check-ins?space=${s}&state=out`)).json();
    expect(out.map((c: any) => [c.member, c.checkedOutAt, c.checkOutMethod]).sort()).toEqual(
      [
        [ada.id, '2026-11-27T18:00:00.000Z', 'closing'],
        [bob.id, '2026-11-27T18:00:00.000Z', 'closing'],
      ].sort(),
    );

    // No opening hours: out at local midnight.
    const always = await space([]);
    const carol = await member(always, 'C0FFEE0004');
    now = new Date('2026-11-27T22:00:00.000Z');
    expect((await api(carol.token, 'POST', '/check-ins', {})).statusCode).toBe(201);
    now = new Date('2026-11-27T23:59:00.000Z');
    await t.hub.closingTimes.check();
    expect((await api(owner, 'GET', `/check-ins?space=${always}&state=in`)).json()).toHaveLength(1);
    now = new Date('2026-11-28T00:00:30.000Z');
    await t.hub.closingTimes.check();
    expect((await api(owner, 'GET', `/check-ins?space=${always}`)).json()).toEqual([
      expect.objectContaining({
        state: 'out',
        checkedOutAt: '2026-11-28T00:00:00.000Z',
        checkOutMethod: 'closing',
      }),
    ]);
  });

  it('refuses an entry when the space is full (occupancyFull), but lets people out, and admins in', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const s = await space([], 2);
    const door = await entrance(s);
    const a = await member(s, 'C0FFEE0011');
    await member(s, 'C0FFEE0012');
    const c = await member(s, 'C0FFEE0013');
    expect((await tap(door, 'C0FFEE0011')).json().type).toBe('allowed');
    expect((await tap(door, 'C0FFEE0012')).json().type).toBe('allowed');

    // The machine page's verdict says it before the tap.
    const check = (await api(c.token, 'GET', `/resources/${door.id}/access-check`)).json();
    expect(check).toMatchObject({ allowed: false, reason: 'occupancyFull' });

    const refused = (await tap(door, 'C0FFEE0013')).json();
    expect(refused).toMatchObject({ type: 'denied', reason: 'occupancyFull' });
    expect(refused.messages[0]).toMatch(/full/);
    const logs = (await api(owner, 'GET', `/resource-logs?resource=${door.id}&type=denied`)).json();
    expect(logs[0]).toMatchObject({ member: c.id, reason: 'occupancyFull' });
    // The kiosk is refused as well.
    const kiosk = await api(c.token, 'POST', '/check-ins', {});
    expect(kiosk.statusCode).toBe(403);
    expect(kiosk.json().data).toMatchObject({ reason: 'occupancyFull' });

    // Someone inside still gets out, and then there is room.
    expect((await tap(door, 'C0FFEE0012')).json()).toMatchObject({
      type: 'allowed',
      messages: expect.arrayContaining(['Checked out']),
    });
    expect((await tap(door, 'C0FFEE0013')).json()).toMatchObject({
      type: 'allowed',
      messages: expect.arrayContaining(['Checked in']),
    });

    // Full again: an admin passes.
    await api(owner, 'PUT', `/members/${t.owner.memberId}/key`, { type: 'em4102', token: 'C0FFEE00FF' });
    expect((await tap(door, 'C0FFEE00FF')).json()).toMatchObject({
      type: 'allowed',
      messages: expect.arrayContaining(['Checked in']),
    });
    expect((await api(owner, 'GET', `/presence?space=${s}`)).json()).toMatchObject({
      checkedIn: 3,
      occupancyLimit: 2,
    });
    expect(a.id).toBeGreaterThan(0);
  });

  it('the kiosk: a member checks in and out with a button; a second check-in is a conflict', async () => {
    now = new Date('2026-11-27T11:00:00.000Z');
    const s = await space([]);
    const ada = await member(s, 'C0FFEE0021');
    const created = await api(ada.token, 'POST', '/check-ins', {});
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      member: ada.id,
      space: s,
      state: 'in',
      checkInMethod: 'kiosk',
      checkInResource: null,
    });
    const again = await api(ada.token, 'POST', '/check-ins', {});
    expect(again.statusCode).toBe(409);
    expect(again.json().data).toMatchObject({ alreadyCheckedIn: created.json().id });

    now = new Date('2026-11-27T11:45:00.000Z');
    const out = await api(ada.token, 'POST', `/check-ins/${created.json().id}/check-out`);
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({
      state: 'out',
      checkedOutAt: '2026-11-27T11:45:00.000Z',
      checkOutMethod: 'kiosk',
    });
    expect((await api(ada.token, 'POST', `/check-ins/${created.json().id}/check-out`)).statusCode).toBe(409);
    // Unknown fields are refused.
    expect((await api(ada.token, 'POST', '/check-ins', { room: 3 })).statusCode).toBe(400);
  });

  it('members see only their own check-ins; admins all, filtered by state, space and time', async () => {
    now = new Date('2026-11-27T09:00:00.000Z');
    const s = await space([]);
    const ada = await member(s, 'C0FFEE0031');
    const bob = await member(s, 'C0FFEE0032');
    const adaIn = (await api(ada.token, 'POST', '/check-ins', {})).json();
    now = new Date('2026-11-27T09:30:00.000Z');
    const bobIn = (await api(bob.token, 'POST', '/check-ins', {})).json();

    const mine = await api(ada.token, 'GET', '/check-ins');
    expect(mine.json().map((c: any) => c.id)).toEqual([adaIn.id]);
    expect((await api(ada.token, 'GET', `/check-ins/${bobIn.id}`)).statusCode).toBe(404);
    expect((await api(ada.token, 'POST', `/check-ins/${bobIn.id}/check-out`)).statusCode).toBe(404);
    // A member's `member` filter cannot widen the view.
    expect((await api(ada.token, 'GET', `/check-ins?member=${bob.id}`)).json()).toEqual([]);

    const all = await api(owner, 'GET', `/check-ins?space=${s}`);
    expect(all.headers['x-total-count']).toBe('2');
    expect(all.json().map((c: any) => c.id)).toEqual([bobIn.id, adaIn.id]);
    const window = await api(
      owner,
      'GET',
      `/check-ins?space=${s}&from=2026-11-27T09:15:00.000Z&until=2026-11-27T10:00:00.000Z`,
    );
    expect(window.json().map((c: any) => c.id)).toEqual([bobIn.id]);

    // An admin checks Bob out.
    const out = (await api(owner, 'POST', `/check-ins/${bobIn.id}/check-out`)).json();
    expect(out).toMatchObject({ state: 'out', checkOutMethod: 'admin' });

    // Another account sees none of it.
    const other = await t.newAccount('Elsewhere', `else${randomUUID()}@test.example`);
    expect((await api(other.token, 'GET', '/check-ins')).json()).toEqual([]);
    expect((await api(other.token, 'GET', `/check-ins/${adaIn.id}`)).statusCode).toBe(404);

    // Shown by name only after opting in.
    expect((await api(owner, 'GET', `/presence?space=${s}`)).json()).toMatchObject({
      checkedIn: 1,
      people: [],
    });
    const put = await api(ada.token, 'PUT', `/members/${ada.id}/presence-settings`, { showPresence: true });
    expect(put.json()).toEqual({ showPresence: true });
    expect(
      (await api(ada.token, 'PUT', `/members/${bob.id}/presence-settings`, { showPresence: true }))
        .statusCode,
    ).toBe(404);
    expect((await api(owner, 'GET', `/presence?space=${s}`)).json()).toMatchObject({
      checkedIn: 1,
      people: [{ member: ada.id, name: 'Ada C0FFEE0031', since: '2026-11-27T09:00:00.000Z' }],
    });
  });

  it('refuses a locked or pending member at the entrance and at the kiosk, and checks no one in', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const s = await space([]);
    const door = await entrance(s);
    const locked = await member(s, 'C0FFEE0041', { state: 'locked' });
    const pending = await member(s, 'C0FFEE0042');
    await t.hub.ctx.db
      .updateTable('members')
      .set({ state: 'pending' })
      .where('id', '=', pending.id)
      .execute();
    for (const [m, card] of [
      [locked, 'C0FFEE0041'],
      [pending, 'C0FFEE0042'],
    ] as const) {
      expect((await tap(door, card)).json()).toMatchObject({ type: 'denied', reason: 'memberInactive' });
      const kiosk = await api(m.token, 'POST', '/check-ins', {});
      if (kiosk.statusCode !== 401) {
        expect(kiosk.statusCode).toBe(403);
        expect(kiosk.json().data).toMatchObject({ reason: 'memberInactive' });
      }
    }
    expect((await api(owner, 'GET', `/check-ins?space=${s}`)).json()).toEqual([]);
  });

  it('sends checkIn_created and checkIn_updated webhook events with the change', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const hook = await api(owner, 'POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      categories: ['checkIn'],
      state: 'paused',
    });
    expect(hook.statusCode).toBe(201);
    const s = await space([]);
    const door = await entrance(s);
    const ada = await member(s, 'C0FFEE0051');
    await tap(door, 'C0FFEE0051');
    await tap(door, 'C0FFEE0051');
    const events = await t.hub.ctx.db
      .selectFrom('webhook_events')
      .select(['type', 'details'])
      .where('account', '=', t.owner.accountId)
      .where('type', 'like', 'checkIn_%')
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['checkIn_created', 'checkIn_updated']);
    expect(JSON.parse(events[0].details)).toMatchObject({ checkIn: { member: ada.id, state: 'in' } });
    expect(JSON.parse(events[1].details)).toMatchObject({ checkIn: { member: ada.id, state: 'out' } });
  });
});
