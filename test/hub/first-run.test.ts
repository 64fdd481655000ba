import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MailMessage } from '../../hub/src/sign-in/mailer.js';
import { settingsFromEnv } from '../../hub/src/settings.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * What a fresh hub tells its pages (issue 32, points 8 and 9): the public hub info, the admins'
 * first-run checklist, invitation lifetimes, and the members' free/busy view of a resource.
 */
describeEachDialect('first run: hub info, set-up progress, invitations, availability', (dialect) => {
  let t: TestHub;
  let owner: string;
  let space: number;
  let ada: { id: number; token: string };
  const now = new Date('2026-03-23T09:00:00.000Z');
  const sent: MailMessage[] = [];

  const api = (token: string | null, method: string, url: string, payload?: unknown) =>
    token === null
      ? t.app.inject({ method: method as any, url: `/api/v1${url}` })
      : t.call(token, {
          method: method as any,
          url: `/api/v1${url}`,
          ...(payload === undefined ? {} : { payload: payload as any }),
        });

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    owner = t.owner.token;
    space = t.owner.spaceId;
    ada = await t.newMemberWithToken('Ada', 'Lovelace');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('tells anyone, without credentials, whether mail and the public address are set up', async () => {
    const res = await api(null, 'GET', '/hub-info');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      mailConfigured: false,
      publicUrlSet: false,
      signInLinkMinutes: 15,
      invitationDays: 7,
    });
    t.hub.ctx.publicUrl = 'https://space.example';
    t.hub.ctx.mailer = { send: async (m) => void sent.push(m) };
    try {
      expect((await api(null, 'GET', '/hub-info')).json()).toMatchObject({
        mailConfigured: true,
        publicUrlSet: true,
      });
    } finally {
      t.hub.ctx.publicUrl = undefined;
      t.hub.ctx.mailer = null;
    }
  });

  it('reads HUB_INVITATION_DAYS (7 by default) and refuses a bad value naming it', () => {
    expect(settingsFromEnv({}).invitationDays).toBe(7);
    expect(settingsFromEnv({ HUB_INVITATION_DAYS: '14' }).invitationDays).toBe(14);
    expect(() => settingsFromEnv({ HUB_INVITATION_DAYS: '0' })).toThrow(/HUB_INVITATION_DAYS/);
    expect(() => settingsFromEnv({ HUB_INVITATION_DAYS: 'soon' })).toThrow(/HUB_INVITATION_DAYS/);
  });

  it('makes invitation links valid for 7 days and sign-in links for 15 minutes, and says so', async () => {
    const bo = (
      await api(owner, 'POST', '/members', { firstName: 'Bo', emailAddress: 'bo@first-run.example' })
    ).json();
    const invited = await api(owner, 'POST', `/members/${bo.id}/invitation`);
    expect(invited.statusCode).toBe(200);
    expect(invited.json()).toMatchObject({ emailSent: false, expiresAt: '2026-03-30T09:00:00.000Z' });
    const signIn = await api(owner, 'POST', `/members/${bo.id}/sign-in-link`, {});
    expect(signIn.json()).toMatchObject({ emailSent: false, expiresAt: '2026-03-23T09:15:00.000Z' });

    t.hub.ctx.mailer = { send: async (m) => void sent.push(m) };
    try {
      const mailed = await api(owner, 'POST', `/members/${bo.id}/invitation`);
      expect(mailed.json()).toMatchObject({ emailSent: true, expiresAt: '2026-03-30T09:00:00.000Z' });
      expect(mailed.json().link).toBeUndefined();
      expect(sent.at(-1)?.text).toContain('The link works once, within 7 days.');
      await api(owner, 'POST', `/members/${bo.id}/sign-in-link`, {});
      expect(sent.at(-1)?.text).toContain('The link works once, within 15 minutes.');
    } finally {
      t.hub.ctx.mailer = null;
    }
  });

  it('counts what the first-run checklist needs, for admins only', async () => {
    expect((await api(ada.token, 'GET', '/setup-progress')).statusCode).toBe(403);
    const before = (await api(owner, 'GET', '/setup-progress')).json();
    expect(before).toMatchObject({
      publicUrlSet: false,
      mailConfigured: false,
      packages: 0,
      resources: 0,
      pairedBridges: 0,
      invitedMembers: 1,
    });
    expect(before.spaces).toEqual([
      expect.objectContaining({ id: space, timezone: 'UTC', timezoneSet: false, openingHours: 0 }),
    ]);

    const spaceRecord = (await api(owner, 'GET', `/spaces/${space}`)).json();
    await api(owner, 'PUT', `/spaces/${space}`, {
      timezone: 'Europe/Vienna',
      lockVersion: spaceRecord.lockVersion,
    });
    await api(owner, 'PUT', `/spaces/${space}/opening-hours`, [
      { dayOfWeek: 1, fromTime: '09:00', untilTime: '18:00' },
      { dayOfWeek: 2, fromTime: '09:00', untilTime: '18:00' },
    ]);
    expect((await api(owner, 'POST', '/packages', { name: 'Basic' })).statusCode).toBe(201);
    const door = (
      await api(owner, 'POST', '/resources', { space, name: 'Door', controlType: 'door' })
    ).json();
    await api(owner, 'POST', '/resources', { space, name: 'Laser', controlType: 'machine' });
    expect((await api(owner, 'PUT', `/resources/${door.id}/bridge`, {})).statusCode).toBeLessThan(300);

    const after = (await api(owner, 'GET', '/setup-progress')).json();
    expect(after).toMatchObject({ packages: 1, resources: 2, pairedBridges: 1, invitedMembers: 1 });
    expect(after.spaces[0]).toMatchObject({ timezone: 'Europe/Vienna', timezoneSet: true, openingHours: 2 });
  });

  it('shows members the busy times of a resource in the space’s zone, naming only their own', async () => {
    const laser = (
      await api(owner, 'POST', '/resources', {
        space,
        name: 'Booked laser',
        controlType: 'machine',
        canBeBooked: true,
      })
    ).json();
    await api(owner, 'PUT', `/spaces/${space}/opening-hours`, []);
    const book = (token: string, member: number | undefined, from: string, until: string) =>
      api(token, 'POST', '/bookings', {
        resource: laser.id,
        ...(member ? { member } : {}),
        fromDateTime: from,
        untilDateTime: until,
      });
    expect(
      (await book(ada.token, undefined, '2026-03-24T09:00:00Z', '2026-03-24T10:00:00Z')).statusCode,
    ).toBe(201);
    const bo = (await api(owner, 'POST', '/members', { firstName: 'Cy' })).json();
    expect((await book(owner, bo.id, '2026-03-24T12:00:00Z', '2026-03-24T13:00:00Z')).statusCode).toBe(201);

    const window = 'from=2026-03-24T00:00:00Z&until=2026-03-25T00:00:00Z';
    const res = await api(ada.token, 'GET', `/resources/${laser.id}/availability?${window}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      resource: laser.id,
      timezone: 'Europe/Vienna',
      openingHours: [],
      busy: [
        { fromDateTime: '2026-03-24T09:00:00.000Z', untilDateTime: '2026-03-24T10:00:00.000Z', mine: true },
        { fromDateTime: '2026-03-24T12:00:00.000Z', untilDateTime: '2026-03-24T13:00:00.000Z', mine: false },
      ],
    });
  });

  it('refuses a bad availability window naming the field, and hides other accounts’ resources', async () => {
    const laser = (
      await api(owner, 'POST', '/resources', { space, name: 'Lathe', controlType: 'machine' })
    ).json();
    const backwards = await api(
      ada.token,
      'GET',
      `/resources/${laser.id}/availability?from=2026-03-25T00:00:00Z&until=2026-03-24T00:00:00Z`,
    );
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().data.validation[0].path).toBe('until');
    const tooLong = await api(
      ada.token,
      'GET',
      `/resources/${laser.id}/availability?from=2026-03-01T00:00:00Z&until=2026-05-01T00:00:00Z`,
    );
    expect(tooLong.statusCode).toBe(400);
    const missing = await api(
      ada.token,
      'GET',
      `/resources/${laser.id}/availability?from=2026-03-01T00:00:00Z`,
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json().data.validation[0].path).toBe('until');

    const other = await t.newAccount('Other space', 'other@first-run.example');
    expect(
      (
        await api(
          other.token,
          'GET',
          `/resources/${laser.id}/availability?from=2026-03-24T00:00:00Z&until=2026-03-25T00:00:00Z`,
        )
      ).statusCode,
    ).toBe(404);
  });
});
