import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '../../hub/src/settings.js';
import { hashPassword, storePassword } from '../../hub/src/sign-in/passwords.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { linkToken, type MailCatcher, startMailCatcher } from '../support/mail.js';

const origin = 'http://hub.test';

describe('mail settings', () => {
  it('reads HUB_SMTP_URL and HUB_MAIL_FROM, and refuses a URL that is not SMTP', () => {
    const settings = settingsFromEnv({
      HUB_SMTP_URL: 'smtp://127.0.0.1:2525',
      HUB_MAIL_FROM: 'Lab <hub@lab.example>',
    });
    expect(settings.smtpUrl).toBe('smtp://127.0.0.1:2525');
    expect(settings.mailFrom).toBe('Lab <hub@lab.example>');
    expect(settingsFromEnv({}).smtpUrl).toBeUndefined();
    expect(() => settingsFromEnv({ HUB_SMTP_URL: 'http://127.0.0.1:2525' })).toThrow(/HUB_SMTP_URL/);
  });
});

describeEachDialect('sign-in for people: passwords, links, browser sessions', (dialect) => {
  let t: TestHub;
  let bare: TestHub; // a hub without SMTP
  let mail: MailCatcher;
  let owner: string;
  const log: string[] = [];
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };
  let nextIp = 1;
  /** Each test signs in from its own (loopback) source address, so throttles stay per test. */
  let ip = '127.0.1.1';

  beforeAll(async () => {
    mail = await startMailCatcher();
    const logStream = new Writable({
      write(chunk, _enc, done) {
        log.push(chunk.toString());
        done();
      },
    });
    t = await startTestHub(dialect, {
      clock,
      settings: { smtpUrl: mail.url, mailFrom: 'Test space <hub@test.example>', publicUrl: origin },
      logger: createLogger({ name: 'test-hub', level: 'debug', destination: logStream }),
    });
    bare = await startTestHub(dialect, { settings: { publicUrl: origin } });
    owner = t.owner.token;
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
    await mail?.close();
  });
  beforeEach(() => {
    nextIp += 1;
    ip = `127.0.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  });

  const api = (hub: TestHub, token: string, method: string, url: string, payload?: unknown) =>
    hub.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  /** A request without a token, from this test's address, optionally with a session cookie. */
  const anon = (
    method: string,
    url: string,
    options: { payload?: unknown; cookie?: string; headers?: Record<string, string>; hub?: TestHub } = {},
  ) =>
    (options.hub ?? t).app.inject({
      method: method as InjectOptions['method'],
      url: `/api/v1${url}`,
      remoteAddress: ip,
      headers: {
        ...(options.cookie ? { cookie: `makerspace_session=${options.cookie}` } : {}),
        ...options.headers,
      },
      ...(options.payload === undefined ? {} : { payload: options.payload as any }),
    });

  async function newMember(hub: TestHub, fields: Record<string, unknown> = {}) {
    const res = await api(hub, hub.owner.token, 'POST', '/members', {
      firstName: 'Robin',
      lastName: 'Maker',
      emailAddress: `robin-${randomUUID()}@test.example`,
      ...fields,
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number; emailAddress: string; lockVersion: number };
  }

  async function withPassword(hub: TestHub, password = 'correct horse battery') {
    const member = await newMember(hub);
    await storePassword(hub.hub.ctx.db, member.id, await hashPassword(password), new Date().toISOString());
    return { ...member, password };
  }

  function cookieOf(res: LightMyRequestResponse): string {
    const header = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('makerspace_session='));
    if (!header) throw new Error('no session cookie set');
    return header.slice('makerspace_session='.length).split(';')[0];
  }

  async function login(emailAddress: string, password: string) {
    const res = await anon('POST', '/user/login', { payload: { emailAddress, password } });
    expect(res.statusCode).toBe(200);
    return { cookie: cookieOf(res), csrf: res.json().csrfToken as string, body: res.json() };
  }

  const sameSite = (csrf: string) => ({ origin, 'x-csrf-token': csrf });

  it('signs in with the password: the member, a CSRF token, the session, and an HttpOnly cookie', async () => {
    const m = await withPassword(t);
    const res = await anon('POST', '/user/login', {
      payload: { emailAddress: m.emailAddress.toUpperCase(), password: m.password },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.member.id).toBe(m.id);
    expect(body.member.members[0].id).toBe(m.id);
    expect(body.member).not.toHaveProperty('state');
    // As the OctoPrint login plugin reads it: the user record at the top, active, with its members.
    const user = (await anon('GET', '/user/me', { cookie: cookieOf(res) })).json();
    expect(body).toMatchObject({ ...user, state: 'active' });
    expect(body.members.map((x: { id: number; account: number }) => [x.id, x.account])).toEqual([
      [m.id, user.account],
    ]);
    expect(body.session).toMatchObject({ method: 'password', current: true, ipAddress: ip });
    expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^makerspace_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain(`Max-Age=${30 * 24 * 3600}`);
    expect(setCookie).not.toContain('Secure');

    const me = await anon('GET', '/user/me', { cookie: cookieOf(res) });
    expect(me.statusCode).toBe(200);
    expect(me.json().id).toBe(m.id);
  });

  it('marks the cookie Secure when the request came over HTTPS (through a trusted proxy only)', async () => {
    const m = await withPassword(t);
    // The proxy in front (here the test's client address) is trusted with its forwarded headers.
    const proxied = await startTestHub(dialect, {
      settings: { publicUrl: origin, trustProxy: [ip] },
    });
    try {
      const p = await withPassword(proxied);
      const res = await anon('POST', '/user/login', {
        payload: { emailAddress: p.emailAddress, password: p.password },
        headers: { 'x-forwarded-proto': 'https' },
        hub: proxied,
      });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['set-cookie'])).toContain('Secure');
    } finally {
      await proxied.close();
    }
    // From anyone else the header does not count.
    const direct = await anon('POST', '/user/login', {
      payload: { emailAddress: m.emailAddress, password: m.password },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(direct.statusCode).toBe(200);
    expect(String(direct.headers['set-cookie'])).not.toContain('Secure');
  });

  it('answers wrong password, unknown address, no password and locked members alike', async () => {
    const m = await withPassword(t);
    const noPassword = await newMember(t);
    const locked = await withPassword(t);
    await storePassword(
      t.hub.ctx.db,
      locked.id,
      await hashPassword(locked.password),
      new Date().toISOString(),
    );
    expect(
      (
        await api(t, owner, 'PUT', `/members/${locked.id}`, {
          state: 'locked',
          lockVersion: locked.lockVersion,
        })
      ).statusCode,
    ).toBe(200);
    const noLogin = await withPassword(t);
    await api(t, owner, 'PUT', `/members/${noLogin.id}`, {
      allowLogin: false,
      lockVersion: noLogin.lockVersion,
    });

    const attempts = [
      { emailAddress: m.emailAddress, password: 'not the password' },
      { emailAddress: `nobody-${randomUUID()}@test.example`, password: m.password },
      { emailAddress: noPassword.emailAddress, password: m.password },
      { emailAddress: locked.emailAddress, password: locked.password },
      { emailAddress: noLogin.emailAddress, password: noLogin.password },
    ];
    const bodies = [];
    for (const payload of attempts) {
      const res = await anon('POST', '/user/login', { payload });
      expect(res.statusCode).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      bodies.push(res.json());
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0].message).toBe('Wrong email address or password');
  });

  it('refuses cookie-authenticated changes without the Origin and CSRF token, and changes nothing', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const change = { label: 'from the browser' };

    const none = await anon('POST', '/api-keys', { cookie: s.cookie, payload: change });
    expect(none.statusCode).toBe(403);
    expect(none.json().data).toEqual({ reason: 'csrf' });
    const originOnly = await anon('POST', '/api-keys', {
      cookie: s.cookie,
      payload: change,
      headers: { origin },
    });
    expect(originOnly.statusCode).toBe(403);
    const tokenOnly = await anon('POST', '/api-keys', {
      cookie: s.cookie,
      payload: change,
      headers: { 'x-csrf-token': s.csrf },
    });
    expect(tokenOnly.statusCode).toBe(403);
    const crossSite = await anon('POST', '/api-keys', {
      cookie: s.cookie,
      payload: change,
      headers: { origin: 'https://evil.example', 'x-csrf-token': s.csrf },
    });
    expect(crossSite.statusCode).toBe(403);
    const wrongToken = await anon('POST', '/api-keys', {
      cookie: s.cookie,
      payload: change,
      // The last character changed (to one it surely is not).
      headers: { origin, 'x-csrf-token': `${s.csrf.slice(0, -1)}${s.csrf.endsWith('A') ? 'B' : 'A'}` },
    });
    expect(wrongToken.statusCode).toBe(403);
    const keys = await anon('GET', `/api-keys?member=${m.id}`, { cookie: s.cookie });
    expect(keys.statusCode).toBe(200);
    expect(keys.json()).toEqual([]);

    const ok = await anon('POST', '/api-keys', {
      cookie: s.cookie,
      payload: change,
      headers: sameSite(s.csrf),
    });
    expect(ok.statusCode).toBe(201);
    expect((await anon('GET', `/api-keys?member=${m.id}`, { cookie: s.cookie })).json()).toHaveLength(1);
  });

  it('refuses a form post from another site, also to the sign-in routes', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const form = {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'https://evil.example',
    };
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/logout',
      headers: { ...form, cookie: `makerspace_session=${s.cookie}` },
      payload: '',
    });
    expect(post.statusCode).toBe(403);
    expect((await anon('GET', '/user/me', { cookie: s.cookie })).statusCode).toBe(200);
    const loginCsrf = await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/login',
      headers: form,
      payload: `emailAddress=${encodeURIComponent(m.emailAddress)}&password=${encodeURIComponent(m.password)}`,
    });
    expect(loginCsrf.statusCode).toBe(403);
    expect(loginCsrf.headers['set-cookie']).toBeUndefined();
  });

  it('keeps Bearer tokens working without CSRF proof', async () => {
    const res = await api(t, owner, 'POST', '/api-keys', { label: 'script' });
    expect(res.statusCode).toBe(201);
  });

  it('shows an API key token only to calls made with an API key', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const key = await anon('POST', '/api-keys', { cookie: s.cookie, payload: {}, headers: sameSite(s.csrf) });
    expect(key.statusCode).toBe(201);
    const viaCookie = await anon('GET', `/api-keys/${key.json().id}/token`, { cookie: s.cookie });
    expect(viaCookie.statusCode).toBe(403);
    expect(viaCookie.body).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    const viaOwnerToken = await api(t, owner, 'GET', `/api-keys/${key.json().id}/token`);
    expect(viaOwnerToken.statusCode).toBe(200);
    expect(viaOwnerToken.json().token).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a form-encoded login answers with the session cookie, and logout through that cookie ends it', async () => {
    const m = await withPassword(t);
    const res = await anon('POST', '/user/login', {
      payload: `emailAddress=${encodeURIComponent(m.emailAddress)}&password=${encodeURIComponent(m.password)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(200);
    const cookie = cookieOf(res);
    const csrf = res.json().csrfToken as string;
    const sessions = await anon('GET', '/user/sessions', { cookie });
    expect(sessions.json().map((s: { id: number }) => s.id)).toContain(res.json().session.id);
    // Without the CSRF proof a cookie logout is refused and the session lives on.
    expect((await anon('POST', '/user/logout', { cookie })).statusCode).toBe(403);
    expect((await anon('GET', '/user/me', { cookie })).statusCode).toBe(200);
    const out = await anon('POST', '/user/logout', { cookie, headers: sameSite(csrf) });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^makerspace_session=; /);
    expect((await anon('GET', '/user/sessions', { cookie })).statusCode).toBe(401);
    // The member's API access is untouched by a browser logout.
    expect((await api(t, owner, 'GET', `/members/${m.id}`)).statusCode).toBe(200);
  });

  it('signs out: the cookie is cleared and no longer works', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const ended: number[][] = [];
    const stop = t.hub.ctx.sessions.onRevoked((ids) => ended.push(ids));
    const out = await anon('POST', '/user/logout', { cookie: s.cookie, headers: sameSite(s.csrf) });
    stop();
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^makerspace_session=; .*Max-Age=0/);
    expect(ended).toEqual([[s.body.session.id]]);
    const after = await anon('GET', '/user/me', { cookie: s.cookie });
    expect(after.statusCode).toBe(401);
    expect((await anon('GET', '/user/me', { cookie: 'x'.repeat(43) })).statusCode).toBe(401);
  });

  it('lists only my sessions, ends one of them, 404 for somebody else’s, and signs out everywhere', async () => {
    const m = await withPassword(t);
    const other = await withPassword(t);
    const a = await login(m.emailAddress, m.password);
    const b = await login(m.emailAddress, m.password);
    const c = await login(m.emailAddress, m.password);
    const theirs = await login(other.emailAddress, other.password);

    const list = await anon('GET', '/user/sessions', { cookie: a.cookie });
    expect(list.statusCode).toBe(200);
    const ids = list.json().map((s: { id: number }) => s.id);
    expect(ids.sort()).toEqual([a.body.session.id, b.body.session.id, c.body.session.id].sort());
    expect(
      list
        .json()
        .filter((s: { current: boolean }) => s.current)
        .map((s: { id: number }) => s.id),
    ).toEqual([a.body.session.id]);

    const foreign = await anon('DELETE', `/user/sessions/${theirs.body.session.id}`, {
      cookie: a.cookie,
      headers: sameSite(a.csrf),
    });
    expect(foreign.statusCode).toBe(404);
    expect((await anon('GET', '/user/me', { cookie: theirs.cookie })).statusCode).toBe(200);

    const one = await anon('DELETE', `/user/sessions/${b.body.session.id}`, {
      cookie: a.cookie,
      headers: sameSite(a.csrf),
    });
    expect(one.statusCode).toBe(204);
    expect((await anon('GET', '/user/me', { cookie: b.cookie })).statusCode).toBe(401);
    expect((await anon('GET', '/user/me', { cookie: a.cookie })).statusCode).toBe(200);

    const everywhere = await anon('DELETE', '/user/sessions', {
      cookie: a.cookie,
      headers: sameSite(a.csrf),
    });
    expect(everywhere.statusCode).toBe(204);
    expect((await anon('GET', '/user/me', { cookie: a.cookie })).statusCode).toBe(401);
    expect((await anon('GET', '/user/me', { cookie: c.cookie })).statusCode).toBe(401);
    expect((await anon('GET', '/user/me', { cookie: theirs.cookie })).statusCode).toBe(200);
  });

  it('ends the sessions of a member who is locked, and tells the listeners', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const ended: number[] = [];
    const stop = t.hub.ctx.sessions.onRevoked((ids) => ended.push(...ids));
    await api(t, owner, 'PUT', `/members/${m.id}`, { state: 'locked', lockVersion: m.lockVersion });
    stop();
    expect(ended).toEqual([s.body.session.id]);
    expect((await anon('GET', '/user/me', { cookie: s.cookie })).statusCode).toBe(401);
  });

  it('ends the sessions of a deleted member, and tells the listeners', async () => {
    const m = await withPassword(t);
    const a = await login(m.emailAddress, m.password);
    const b = await login(m.emailAddress, m.password);
    const ended: number[] = [];
    const stop = t.hub.ctx.sessions.onRevoked((ids) => ended.push(...ids));
    expect((await api(t, owner, 'DELETE', `/members/${m.id}`)).statusCode).toBe(204);
    stop();
    expect(ended.sort()).toEqual([a.body.session.id, b.body.session.id].sort());
    expect((await anon('GET', '/user/me', { cookie: a.cookie })).statusCode).toBe(401);
  });

  it("a new password ends the member's other sessions", async () => {
    const m = await withPassword(t);
    const here = await login(m.emailAddress, m.password);
    const elsewhere = await login(m.emailAddress, m.password);
    const res = await anon('PUT', '/user/password', {
      cookie: here.cookie,
      headers: sameSite(here.csrf),
      payload: { password: 'fresh and long enough', currentPassword: m.password },
    });
    expect(res.statusCode).toBe(204);
    expect((await anon('GET', '/user/me', { cookie: here.cookie })).statusCode).toBe(200);
    expect((await anon('GET', '/user/me', { cookie: elsewhere.cookie })).statusCode).toBe(401);
    expect(
      (await anon('POST', '/user/login', { payload: { emailAddress: m.emailAddress, password: m.password } }))
        .statusCode,
    ).toBe(401);
    await login(m.emailAddress, 'fresh and long enough');
  });

  it('expires a session after 30 days without use, and slides while it is used', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    try {
      shift = 20 * 24 * 3600_000;
      const used = await anon('GET', '/user/me', { cookie: s.cookie });
      expect(used.statusCode).toBe(200);
      expect(String(used.headers['set-cookie'])).toContain('Max-Age=2592000'); // sent again as it slid
      shift = 40 * 24 * 3600_000;
      expect((await anon('GET', '/user/me', { cookie: s.cookie })).statusCode).toBe(200);
      shift = 71 * 24 * 3600_000;
      expect((await anon('GET', '/user/me', { cookie: s.cookie })).statusCode).toBe(401);
    } finally {
      shift = 0;
    }
  });

  it('deletes sessions and links a week after they ended, and keeps live ones', async () => {
    const m = await withPassword(t);
    const live = await login(m.emailAddress, m.password);
    const ended = await login(m.emailAddress, m.password);
    await anon('POST', '/user/logout', { cookie: ended.cookie, headers: sameSite(ended.csrf) });
    await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } });
    await mail.next(m.emailAddress);
    const rows = async () => ({
      sessions: (
        await t.hub.ctx.db.selectFrom('browser_sessions').select('id').where('member', '=', m.id).execute()
      ).map((r) => r.id),
      links: (
        await t.hub.ctx.db.selectFrom('sign_in_links').select('id').where('member', '=', m.id).execute()
      ).length,
    });
    try {
      shift = 6 * 24 * 3600_000;
      await t.hub.signInPurge.check();
      expect(await rows()).toEqual({
        sessions: expect.arrayContaining([live.body.session.id, ended.body.session.id]),
        links: 1,
      });
      shift = 8 * 24 * 3600_000;
      await t.hub.signInPurge.check();
      expect(await rows()).toEqual({ sessions: [live.body.session.id], links: 0 });
    } finally {
      shift = 0;
    }
  });

  it('mails a sign-in link that signs in once', async () => {
    const m = await newMember(t);
    const ask = await anon('POST', '/user/sign-in-links', {
      payload: { emailAddress: m.emailAddress, next: '/r/12?c=ABC' },
    });
    expect(ask.statusCode).toBe(202);
    expect(ask.json()).toEqual({});
    const sent = await mail.next(m.emailAddress);
    expect(sent.text).toContain('Test makerspace');
    expect(sent.text).toContain('15 minutes');
    expect(sent.text).toContain(`${origin}/sign-in/link#token=`);
    expect(sent.text).toContain(`&next=${encodeURIComponent('/r/12?c=ABC')}`);
    const token = linkToken(sent);

    const redeem = await anon('POST', '/user/sign-in-links/redeem', { payload: { token } });
    expect(redeem.statusCode).toBe(200);
    expect(redeem.json()).toMatchObject({ purpose: 'signIn', next: '/r/12?c=ABC', member: { id: m.id } });
    expect(redeem.json().session.method).toBe('link');
    expect((await anon('GET', '/user/me', { cookie: cookieOf(redeem) })).statusCode).toBe(200);

    const again = await anon('POST', '/user/sign-in-links/redeem', { payload: { token } });
    expect(again.statusCode).toBe(410);
    expect(again.json().message).toBe('This sign-in link was already used');
    expect(again.headers['set-cookie']).toBeUndefined();

    const unknown = await anon('POST', '/user/sign-in-links/redeem', { payload: { token: `${token}x` } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toBe('This sign-in link is not valid');
  });

  it('refuses a link after its 15 minutes, and the link stays unused', async () => {
    const m = await newMember(t);
    await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } });
    const token = linkToken(await mail.next(m.emailAddress));
    try {
      shift = 15 * 60_000 + 1000;
      const late = await anon('POST', '/user/sign-in-links/redeem', { payload: { token } });
      expect(late.statusCode).toBe(410);
      expect(late.json().message).toBe('This sign-in link has expired');
      expect(late.headers['set-cookie']).toBeUndefined();
    } finally {
      shift = 0;
    }
    const row = await t.hub.ctx.db
      .selectFrom('sign_in_links')
      .select('usedAt')
      .where('member', '=', m.id)
      .executeTakeFirstOrThrow();
    expect(row.usedAt).toBeNull();
  });

  it('answers 202 for an unknown address and sends nothing', async () => {
    const before = mail.mails.length;
    const nobody = `nobody-${randomUUID()}@test.example`;
    const res = await anon('POST', '/user/sign-in-links', { payload: { emailAddress: nobody } });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({});
    // A known address sent right after arrives; the unknown one never did.
    const m = await newMember(t);
    await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } });
    await mail.next(m.emailAddress);
    expect(mail.mails.slice(before).flatMap((x) => x.to)).not.toContain(nobody);
  });

  it('refuses a next that is not a relative path', async () => {
    const m = await newMember(t);
    for (const next of [
      '//evil.example/x',
      'https://evil.example',
      '/\\evil.example',
      'r/1',
      `/${'a'.repeat(512)}`,
    ]) {
      const res = await anon('POST', '/user/sign-in-links', {
        payload: { emailAddress: m.emailAddress, next },
      });
      expect(res.statusCode, next).toBe(400);
      expect(res.json().message).toContain('next');
    }
  });

  it('invites a member by mail; the link sets up a password without the current one', async () => {
    const m = await newMember(t);
    expect((await api(t, owner, 'GET', `/members/${m.id}/invitation`)).json()).toMatchObject({
      status: 'notInvited',
    });
    const invite = await api(t, owner, 'POST', `/members/${m.id}/invitation`);
    expect(invite.statusCode).toBe(200);
    expect(invite.json()).toEqual({
      member: m.id,
      invitedBy: t.owner.memberId,
      status: 'invited',
      emailSent: true,
      expiresAt: expect.any(String),
    });
    // An invitation waits a week for the member (HUB_INVITATION_DAYS), a sign-in link 15 minutes.
    const week = Date.parse(invite.json().expiresAt) - Date.now();
    expect(week).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(week).toBeLessThanOrEqual(7 * 86_400_000);
    const sent = await mail.next(m.emailAddress);
    expect(sent.text).toContain('within 7 days');
    expect(sent.text).toContain('You are invited to Test makerspace');
    const token = linkToken(sent);
    expect((await api(t, owner, 'GET', `/members/${m.id}/invitation`)).json()).toMatchObject({
      status: 'invited',
      invitedBy: t.owner.memberId,
    });

    const redeem = await anon('POST', '/user/sign-in-links/redeem', { payload: { token } });
    expect(redeem.statusCode).toBe(200);
    expect(redeem.json().purpose).toBe('invitation');
    const cookie = cookieOf(redeem);
    const csrf = redeem.json().csrfToken;
    expect((await api(t, owner, 'GET', `/members/${m.id}/invitation`)).json().status).toBe('accepted');

    const set = await anon('PUT', '/user/password', {
      cookie,
      headers: sameSite(csrf),
      payload: { password: 'a brand new passphrase' },
    });
    expect(set.statusCode).toBe(204);
    // A second change within the link's 15 minutes still needs no current password...
    const again = await anon('PUT', '/user/password', {
      cookie,
      headers: sameSite(csrf),
      payload: { password: 'another new passphrase' },
    });
    expect(again.statusCode).toBe(204);
    await login(m.emailAddress, 'another new passphrase');
    // ...but later it does.
    try {
      shift = 16 * 60_000;
      const late = await anon('PUT', '/user/password', {
        cookie,
        headers: sameSite(csrf),
        payload: { password: 'a third new passphrase' },
      });
      expect(late.statusCode).toBe(400);
      expect(late.json().data).toEqual({ field: 'currentPassword', reason: 'required' });
      const wrong = await anon('PUT', '/user/password', {
        cookie,
        headers: sameSite(csrf),
        payload: { password: 'a third new passphrase', currentPassword: 'nope' },
      });
      expect(wrong.json().data).toEqual({ field: 'currentPassword', reason: 'wrong' });
      const right = await anon('PUT', '/user/password', {
        cookie,
        headers: sameSite(csrf),
        payload: { password: 'a third new passphrase', currentPassword: 'another new passphrase' },
      });
      expect(right.statusCode).toBe(204);
    } finally {
      shift = 0;
    }
  });

  it('resets a forgotten password through a mailed link', async () => {
    const m = await withPassword(t);
    const ask = await anon('POST', '/user/sign-in-links', {
      payload: { emailAddress: m.emailAddress, purpose: 'passwordReset' },
    });
    expect(ask.statusCode).toBe(202);
    const sent = await mail.next(m.emailAddress);
    expect(sent.text).toContain('Reset your password for Test makerspace');
    const redeem = await anon('POST', '/user/sign-in-links/redeem', { payload: { token: linkToken(sent) } });
    expect(redeem.json().purpose).toBe('passwordReset');
    const set = await anon('PUT', '/user/password', {
      cookie: cookieOf(redeem),
      headers: sameSite(redeem.json().csrfToken),
      payload: { password: 'remembered this time' },
    });
    expect(set.statusCode).toBe(204);
    await login(m.emailAddress, 'remembered this time');
  });

  it('sends no link to a locked member', async () => {
    const m = await newMember(t);
    await api(t, owner, 'PUT', `/members/${m.id}`, { state: 'locked', lockVersion: m.lockVersion });
    expect(
      (await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } })).statusCode,
    ).toBe(202);
    const other = await newMember(t);
    await anon('POST', '/user/sign-in-links', { payload: { emailAddress: other.emailAddress } });
    await mail.next(other.emailAddress);
    expect(mail.mails.flatMap((x) => x.to)).not.toContain(m.emailAddress);
    expect((await api(t, owner, 'POST', `/members/${m.id}/invitation`)).statusCode).toBe(422);
  });

  it('a new invitation supersedes the older unused one', async () => {
    const m = await newMember(t);
    await api(t, owner, 'POST', `/members/${m.id}/invitation`);
    const first = linkToken(await mail.next(m.emailAddress));
    await api(t, owner, 'POST', `/members/${m.id}/invitation`);
    const second = linkToken(await mail.next(m.emailAddress));
    expect((await anon('POST', '/user/sign-in-links/redeem', { payload: { token: first } })).statusCode).toBe(
      410,
    );
    expect(
      (await anon('POST', '/user/sign-in-links/redeem', { payload: { token: second } })).statusCode,
    ).toBe(200);
  });

  it('an API token sets the first password; changing it then needs the current one', async () => {
    const m = await newMember(bare);
    const key = await api(bare, bare.owner.token, 'POST', '/api-keys', { member: m.id });
    const token = (await api(bare, bare.owner.token, 'GET', `/api-keys/${key.json().id}/token`)).json().token;
    expect(
      (await api(bare, token, 'PUT', '/user/password', { password: 'first of my passwords' })).statusCode,
    ).toBe(204);
    const again = await api(bare, token, 'PUT', '/user/password', { password: 'second of my passwords' });
    expect(again.statusCode).toBe(400);
    expect(again.json().data).toEqual({ field: 'currentPassword', reason: 'required' });
    const res = await anon('POST', '/user/login', {
      hub: bare,
      payload: { emailAddress: m.emailAddress, password: 'first of my passwords' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses short, common and e-mail passwords with the field and reason', async () => {
    const m = await withPassword(t);
    const s = await login(m.emailAddress, m.password);
    const cases: [string, string][] = [
      ['short', 'tooShort'],
      ['1234567890', 'common'],
      ['QwertyuiOP', 'common'],
      [m.emailAddress.toUpperCase(), 'emailAddress'],
      ['x'.repeat(201), 'tooLong'],
    ];
    for (const [password, reason] of cases) {
      const res = await anon('PUT', '/user/password', {
        cookie: s.cookie,
        headers: sameSite(s.csrf),
        payload: { password, currentPassword: m.password },
      });
      expect(res.statusCode, password).toBe(400);
      expect(res.json().data).toEqual({ field: 'password', reason });
    }
    // Nothing changed: the old password still signs in.
    await login(m.emailAddress, m.password);
  });

  it('throttles failed logins per e-mail address with an honest Retry-After', async () => {
    const m = await withPassword(t);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await anon('POST', '/user/login', {
          payload: { emailAddress: m.emailAddress, password: 'wrong' },
        });
        expect(res.statusCode).toBe(401);
        shift += 60_000;
      }
      // The right password is not even checked now.
      const blocked = await anon('POST', '/user/login', {
        payload: { emailAddress: m.emailAddress, password: m.password },
      });
      expect(blocked.statusCode).toBe(429);
      // The first failure leaves the 15-minute window 10 minutes from now.
      expect(Number(blocked.headers['retry-after'])).toBe(600);
      shift += 600_000;
      expect(
        (
          await anon('POST', '/user/login', {
            payload: { emailAddress: m.emailAddress, password: m.password },
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      shift = 0;
    }
  });

  it('throttles failed logins per source address, and a success does not reset that count', async () => {
    const m = await withPassword(t);
    for (let i = 0; i < 29; i++) {
      const res = await anon('POST', '/user/login', {
        payload: { emailAddress: `guess-${i}@test.example`, password: 'wrong' },
      });
      expect(res.statusCode).toBe(401);
    }
    await login(m.emailAddress, m.password);
    await anon('POST', '/user/login', {
      payload: { emailAddress: 'guess-29@test.example', password: 'wrong' },
    });
    const blocked = await anon('POST', '/user/login', {
      payload: { emailAddress: m.emailAddress, password: m.password },
    });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(890);
  });

  it('throttles sign-in link requests per e-mail address', async () => {
    const m = await newMember(t);
    for (let i = 0; i < 3; i++) {
      expect(
        (await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } })).statusCode,
      ).toBe(202);
      await mail.next(m.emailAddress);
    }
    const before = mail.mails.length;
    const blocked = await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(mail.mails.length).toBe(before);
  });

  it('answers 503 when the mail cannot be sent, and the invitation stays as it was', async () => {
    const m = await newMember(t);
    mail.failing(true);
    try {
      const res = await api(t, owner, 'POST', `/members/${m.id}/invitation`);
      expect(res.statusCode).toBe(503);
      expect(res.json().message).toBe('Could not send the e-mail');
    } finally {
      mail.failing(false);
    }
    expect((await api(t, owner, 'GET', `/members/${m.id}/invitation`)).json().status).toBe('notInvited');
    const links = await t.hub.ctx.db
      .selectFrom('sign_in_links')
      .select('id')
      .where('member', '=', m.id)
      .execute();
    expect(links).toEqual([]);
  });

  it('without SMTP hands the invitation link to the admin, not cached; a member without e-mail is 422', async () => {
    const m = await newMember(bare);
    const res = await api(bare, bare.owner.token, 'POST', `/members/${m.id}/invitation`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toMatchObject({ member: m.id, status: 'invited', emailSent: false });
    expect(res.json().link).toMatch(new RegExp(`^${origin}/sign-in/link#token=[A-Za-z0-9_-]{43}$`));
    const token = /#token=(.+)$/.exec(res.json().link)?.[1];
    const redeem = await anon('POST', '/user/sign-in-links/redeem', { payload: { token }, hub: bare });
    expect(redeem.statusCode).toBe(200);

    const link = await api(bare, bare.owner.token, 'POST', `/members/${m.id}/sign-in-link`, {
      next: '/home',
    });
    expect(link.statusCode).toBe(200);
    expect(link.json().link).toMatch(/#token=[A-Za-z0-9_-]{43}&next=%2Fhome$/);

    const noEmail = await newMember(bare, { emailAddress: null });
    expect((await api(bare, bare.owner.token, 'POST', `/members/${noEmail.id}/invitation`)).statusCode).toBe(
      422,
    );

    // An admin who is not an owner gets no link that signs in as an owner.
    const admin = await newMember(bare);
    await api(bare, bare.owner.token, 'PUT', `/members/${admin.id}/privileges`, { privileges: 'admin' });
    const adminKey = await api(bare, bare.owner.token, 'POST', '/api-keys', { member: admin.id });
    const adminToken = (
      await api(bare, bare.owner.token, 'GET', `/api-keys/${adminKey.json().id}/token`)
    ).json().token;
    const forOwner = await api(bare, adminToken, 'POST', `/members/${bare.owner.memberId}/sign-in-link`);
    expect(forOwner.statusCode).toBe(403);
    expect(forOwner.body).not.toContain('#token=');
    expect((await api(bare, adminToken, 'POST', `/members/${m.id}/sign-in-link`)).statusCode).toBe(200);

    // A plain member may not invite anyone.
    const plain = await withPassword(bare);
    const key = await api(bare, bare.owner.token, 'POST', '/api-keys', { member: plain.id });
    const plainToken = (await api(bare, bare.owner.token, 'GET', `/api-keys/${key.json().id}/token`)).json()
      .token;
    expect((await api(bare, plainToken, 'POST', `/members/${m.id}/invitation`)).statusCode).toBe(403);
  });

  it('links are built from HUB_PUBLIC_URL, never from the Host header', async () => {
    const m = await newMember(t);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/user/sign-in-links',
      remoteAddress: ip,
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      payload: { emailAddress: m.emailAddress },
    });
    const sent = await mail.next(m.emailAddress);
    expect(sent.text).not.toContain('evil.example');
    expect(sent.text).toContain(`${origin}/sign-in/link#token=`);
  });

  it('never writes a link token, session token or password to the log', async () => {
    // Everything the suite did so far went through this hub's log; add a failed send.
    const m = await newMember(t);
    mail.failing(true);
    try {
      await api(t, owner, 'POST', `/members/${m.id}/invitation`);
      await anon('POST', '/user/sign-in-links', { payload: { emailAddress: m.emailAddress } });
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      mail.failing(false);
    }
    const text = log.join('');
    expect(text).toContain('could not send a sign-in e-mail');
    expect(text).not.toMatch(/sign-in\/link/);
    expect(text).not.toMatch(/#token=/);
    for (const sentMail of mail.mails) expect(text).not.toContain(linkToken(sentMail));
    expect(text).not.toContain('correct horse battery');
  });

  it('over a real socket without HUB_PUBLIC_URL, the own origin is the address the browser used', async () => {
    const hub = await startTestHub(dialect);
    try {
      const { httpUrl } = await hub.listen();
      const m = await withPassword(hub);
      const res = await fetch(`${httpUrl}/api/v1/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: httpUrl },
        body: JSON.stringify({ emailAddress: m.emailAddress, password: m.password }),
      });
      expect(res.status).toBe(200);
      const { csrfToken } = (await res.json()) as { csrfToken: string };
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
      const post = (headers: Record<string, string>) =>
        fetch(`${httpUrl}/api/v1/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie, ...headers },
          body: JSON.stringify({ label: 'browser' }),
        });
      const otherPort = httpUrl.replace(/:(\d+)$/, (_, p) => `:${Number(p) + 1}`);
      expect((await post({ origin: otherPort, 'x-csrf-token': csrfToken })).status).toBe(403);
      expect((await post({ origin: httpUrl, 'x-csrf-token': csrfToken })).status).toBe(201);
    } finally {
      await hub.close();
    }
  });

  it('documents the sign-in routes in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/user/login'].post.tags).toEqual(['sign-in']);
    expect(doc.paths['/api/v1/user/login'].post.summary).toBeTruthy();
    expect(doc.paths['/api/v1/user/login'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/user/sessions'].get.security).toBeUndefined(); // the global schemes apply
    expect(doc.paths['/api/v1/user/sign-in-links/redeem'].post).toBeDefined();
    expect(doc.paths['/api/v1/members/{memberId}/invitation'].get).toBeDefined();
    expect(doc.components.securitySchemes.session).toMatchObject({
      in: 'cookie',
      name: 'makerspace_session',
    });
  });
});
