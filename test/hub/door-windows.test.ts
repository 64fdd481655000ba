import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bridgeConfigFor } from '../../hub/src/resources/bridge-config.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

// What the hub tells a door's agent about holding it unlocked (the bridge config's unlockUntil).
describeEachDialect('door modes: the unlock window in the bridge config', (dialect) => {
  let t: TestHub;
  let owner: string;
  let everything: number;
  // Friday 27 November 2026, 10:00 UTC.
  let now = new Date('2026-11-27T10:00:00.000Z');
  const clock = { now: () => now };

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock });
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

  async function door(unlockMode: string) {
    const s = (
      await api(owner, 'POST', '/spaces', { name: `S ${randomUUID().slice(0, 6)}`, timezone: 'UTC' })
    ).json();
    await api(
      owner,
      'PUT',
      `/spaces/${s.id}/opening-hours`,
      [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, fromTime: '09:00', untilTime: '18:00' })),
    );
    const r = (
      await api(owner, 'POST', '/resources', { space: s.id, name: 'Door', controlType: 'door', unlockMode })
    ).json();
    expect(r.unlockMode).toBe(unlockMode);
    await api(owner, 'PUT', `/resources/${r.id}/bridge`, {});
    const apiKey = (await api(owner, 'GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey as string;
    return { id: r.id as number, space: s.id as number, apiKey };
  }
  const config = async (id: number) => (await bridgeConfigFor(t.hub.ctx, id))!;

  it('openingHours: unlocked until closing while open, nothing while closed; a bad mode is refused', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const d = await door('openingHours');
    expect(await config(d.id)).toMatchObject({
      unlockMode: 'openingHours',
      unlockUntil: '2026-11-27T18:00:00.000Z',
    });
    // An HTTP bridge fetches the config by version: the window's change makes a new version.
    const beat = (configVersion?: number) =>
      api(d.apiKey, 'POST', '/bridge/heartbeat', configVersion === undefined ? {} : { configVersion });
    await t.hub.doorWindows.check();
    const open = (await beat()).json().config;
    expect(open.unlockUntil).toBe('2026-11-27T18:00:00.000Z');
    now = new Date('2026-11-27T19:00:00.000Z');
    const closed = await config(d.id);
    expect(closed.unlockMode).toBe('openingHours');
    expect(closed.unlockUntil).toBeUndefined();
    await t.hub.doorWindows.check();
    const after = (await beat(open.configVersion)).json().config;
    expect(after.configVersion).toBeGreaterThan(open.configVersion);
    expect(after.unlockUntil).toBeUndefined();
    const bad = await api(owner, 'PUT', `/resources/${d.id}`, { unlockMode: 'always', lockVersion: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/unlockMode/);
  });

  it('firstIn: locked until the first allowed entry of the day, then unlocked until closing', async () => {
    now = new Date('2026-11-27T09:30:00.000Z');
    const d = await door('firstIn');
    expect((await config(d.id)).unlockUntil).toBeUndefined();
    const m = (await api(owner, 'POST', '/members', { firstName: 'Ada', space: d.space })).json();
    await api(owner, 'POST', `/members/${m.id}/packages`, { package: everything });
    await api(owner, 'PUT', `/members/${m.id}/key`, { type: 'em4102', token: 'D00D000001' });
    const tap = await api(d.apiKey, 'POST', '/bridge/access', {
      keys: [{ type: 'em4102', token: 'D00D000001' }],
    });
    expect(tap.json().type).toBe('allowed');
    expect((await config(d.id)).unlockUntil).toBe('2026-11-27T18:00:00.000Z');
    // The next day starts locked again.
    now = new Date('2026-11-28T09:30:00.000Z');
    expect((await config(d.id)).unlockUntil).toBeUndefined();
  });

  it('lock now takes the window back until it would have ended; a holiday closes it; members may not', async () => {
    now = new Date('2026-11-27T10:00:00.000Z');
    const d = await door('openingHours');
    const member = await t.newMemberWithToken('Bob', 'Member');
    expect((await api(member.token, 'POST', `/resources/${d.id}/lock-now`)).statusCode).toBe(403);
    const locked = await api(owner, 'POST', `/resources/${d.id}/lock-now`);
    expect(locked.json()).toEqual({ lockedUntil: '2026-11-27T18:00:00.000Z' });
    expect((await config(d.id)).unlockUntil).toBeUndefined();
    // The next day's window opens as usual.
    now = new Date('2026-11-28T10:00:00.000Z');
    expect((await config(d.id)).unlockUntil).toBe('2026-11-28T18:00:00.000Z');
    // A holiday from noon shortens the window, and during it there is none.
    await api(owner, 'POST', `/spaces/${d.space}/holidays`, {
      fromDateTime: '2026-11-28T12:00',
      untilDateTime: '2026-11-29T00:00',
    });
    expect((await config(d.id)).unlockUntil).toBe('2026-11-28T12:00:00.000Z');
    now = new Date('2026-11-28T13:00:00.000Z');
    expect((await config(d.id)).unlockUntil).toBeUndefined();
    // A locked (disabled) door is never held open.
    now = new Date('2026-11-30T10:00:00.000Z');
    const row = (await api(owner, 'GET', `/resources/${d.id}`)).json();
    await api(owner, 'PUT', `/resources/${d.id}`, { state: 'locked', lockVersion: row.lockVersion });
    expect((await config(d.id)).unlockUntil).toBeUndefined();
  });
});
