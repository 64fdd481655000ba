import { afterAll, beforeAll, expect, it } from 'vitest';
import { coreRules } from '../../hub/src/access/core.rules.js';
import { pendingSignUps } from '../../hub/src/sign-up/sign-ups.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { linkToken, type MailCatcher, startMailCatcher } from '../support/mail.js';
import { fastTuning, type Receiver, startReceiver, waitFor } from './webhooks-helpers.js';

const origin = 'http://hub.test';

/** The token of the confirmation link in a sign-up mail. */
function confirmToken(text: string): string {
  const match = /\/join\/confirm#token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error('no confirmation link in the mail');
  return match[1];
}

/**
 * Sign-up (docs/DECISIONS.md, "Sign-up"): a stranger joins alone, confirms the address by the
 * mailed link, waits pending (refused at the door, charged nothing) until an admin approves the
 * completed checklist; every refusal is a clear answer that creates nothing.
 */
describeEachDialect('sign-up: strangers join a space alone', (dialect) => {
  let t: TestHub;
  let bare: TestHub; // no SMTP
  let mail: MailCatcher;
  let owner: string;
  let space: number;
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };
  let full: number;
  let other: number;
  let door: { id: number; apiKey: string };
  let receiver: Receiver;
  let ipCount = 1;
  /** Each call from its own source address unless told, so the sign-up throttle stays out of the way. */
  const nextIp = () => {
    ipCount += 1;
    return `127.0.${Math.floor(ipCount / 250)}.${(ipCount % 250) + 1}`;
  };

  const api = (hub: TestHub, token: string, method: string, url: string, payload?: unknown) =>
    hub.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const admin = (method: string, url: string, payload?: unknown) => api(t, owner, method, url, payload);
  const anon = (
    method: string,
    url: string,
    payload?: unknown,
    options: { ip?: string; hub?: TestHub } = {},
  ) =>
    (options.hub ?? t).app.inject({
      method: method as any,
      url: `/api/v1${url}`,
      remoteAddress: options.ip ?? nextIp(),
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const signUp = (body: Record<string, unknown>, options: { ip?: string; hub?: TestHub } = {}) =>
    anon(
      'POST',
      '/sign-ups',
      { firstName: 'Ada', lastName: 'Lovelace', package: full, acceptedVersion: 1, ...body },
      options,
    );
  const tap = (token: string) =>
    api(t, door.apiKey, 'POST', '/bridge/access', { keys: [{ type: 'em4102', token }], configVersion: 0 });
  const signUps = async (hub = t) => (await api(hub, hub.owner.token, 'GET', '/sign-ups')).json() as any[];
  const memberOf = async (id: number) => (await admin('GET', `/members/${id}`)).json();

  async function openSignUp(hub: TestHub, pkg: number) {
    const id = hub.owner.spaceId;
    await api(hub, hub.owner.token, 'PUT', `/spaces/${id}/house-rules`, {
      houseRules: '<p>Clean up.</p>',
      waiver: '<p>At my own risk.</p>',
    });
    const res = await api(hub, hub.owner.token, 'PUT', `/spaces/${id}/sign-up-settings`, {
      enabled: true,
      packages: [pkg],
    });
    expect(res.statusCode).toBe(200);
  }

  beforeAll(async () => {
    mail = await startMailCatcher();
    t = await startTestHub(dialect, {
      clock,
      settings: {
        smtpUrl: mail.url,
        mailFrom: 'Test space <hub@test.example>',
        publicUrl: origin,
        webhookAllowInsecure: true,
        webhookTuning: fastTuning,
      },
    });
    receiver = await startReceiver();
    bare = await startTestHub(dialect, { settings: { publicUrl: origin } });
    owner = t.owner.token;
    space = t.owner.spaceId;
    full = (
      await admin('POST', '/packages', { name: 'Full membership', setupFee: '25.00', recurringFee: '40.00' })
    ).json().id;
    await admin('POST', `/packages/${full}/permissions`, { type: 'everything' });
    other = (await admin('POST', '/packages', { name: 'Board only' })).json().id;
    const r = (await admin('POST', '/resources', { space, name: 'Front door', controlType: 'door' })).json();
    await admin('PUT', `/resources/${r.id}/bridge`, { heartbeatInterval: 30 });
    door = { id: r.id, apiKey: (await admin('GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey };
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
    await mail?.close();
    await receiver?.close();
  });

  it('is off by default: the join API answers 404 and creates nothing', async () => {
    expect((await anon('GET', '/sign-ups/spaces')).statusCode).toBe(404);
    const rules = await anon('GET', `/spaces/${space}/house-rules`);
    expect(rules.statusCode).toBe(404);
    const res = await signUp({ emailAddress: 'early@join.example' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/Sign-up is not open/);
    expect(await signUps()).toEqual([]);
    // Turning it on needs house rules and an offered package, each refusal naming the field.
    const noRules = await admin('PUT', `/spaces/${space}/sign-up-settings`, {
      enabled: true,
      packages: [full],
    });
    expect(noRules.statusCode).toBe(422);
    expect(noRules.json()).toMatchObject({ data: { field: 'enabled' } });
    const noPackages = await admin('PUT', `/spaces/${space}/sign-up-settings`, {
      enabled: true,
      packages: [],
    });
    expect(noPackages.statusCode).toBe(422);
    const unknown = await admin('PUT', `/spaces/${space}/sign-up-settings`, {
      enabled: false,
      packages: [99999],
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({ data: { field: 'packages' } });
    expect((await admin('GET', `/spaces/${space}/sign-up-settings`)).json()).toMatchObject({
      enabled: false,
      packages: [],
      houseRules: { version: 0 },
    });
  });

  it('keeps house rules sanitized and versioned: only a changed text makes a new version', async () => {
    const first = await admin('PUT', `/spaces/${space}/house-rules`, {
      houseRules: '<p>Clean up after yourself.</p><script>alert(1)</script>',
      waiver: '<p>I use the machines at my own risk.</p>',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ version: 1, houseRules: '<p>Clean up after yourself.</p>' });
    const again = await admin('PUT', `/spaces/${space}/house-rules`, {
      houseRules: '<p>Clean up after yourself.</p>',
      waiver: '<p>I use the machines at my own risk.</p>',
    });
    expect(again.json().version).toBe(1);
    const on = await admin('PUT', `/spaces/${space}/sign-up-settings`, {
      enabled: true,
      packages: [full],
      requireKeyCard: true,
    });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ enabled: true, packages: [full], requireKeyCard: true });
    const offer = (await anon('GET', `/spaces/${space}/sign-up`)).json();
    expect(offer).toMatchObject({
      space: { id: space },
      packages: [{ id: full, name: 'Full membership' }],
      houseRules: { version: 1 },
    });
    expect((await anon('GET', '/sign-ups/spaces')).json()).toEqual([{ id: space, name: expect.any(String) }]);
    expect((await anon('GET', `/spaces/${space}/house-rules`)).json().version).toBe(1);
  });

  it('refuses bad sign-ups clearly and creates nothing', async () => {
    const notOffered = await signUp({ emailAddress: 'other@join.example', package: other });
    expect(notOffered.statusCode).toBe(422);
    expect(notOffered.json()).toMatchObject({ data: { field: 'package' } });
    const stale = await signUp({ emailAddress: 'stale@join.example', acceptedVersion: 7 });
    expect(stale.statusCode).toBe(422);
    expect(stale.json()).toMatchObject({ data: { field: 'acceptedVersion', currentVersion: 1 } });
    const used = await signUp({ emailAddress: 'OWNER@test.example' });
    expect(used.statusCode).toBe(409);
    expect(used.json().message).toMatch(/cannot sign up here/);
    expect(used.body).not.toMatch(/owner|admin|active/i);
    const noName = await signUp({ emailAddress: 'noname@join.example', firstName: '' });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toMatch(/firstName/);
    const otherSpace = await signUp({ emailAddress: 'where@join.example', space: 99999 });
    expect(otherSpace.statusCode).toBe(404);
    // A bot filling the hidden field hears the usual answer; nothing is stored, no mail goes out.
    const bot = await signUp({ emailAddress: 'bot@join.example', website: 'http://spam.example' });
    expect(bot.statusCode).toBe(201);
    await expect(mail.next('bot@join.example', 500)).rejects.toThrow(/no mail/);
    expect(await signUps()).toEqual([]);
    const members = (await admin('GET', '/members?q=bot%40join.example')).json();
    expect(members).toEqual([]);
  });

  it('takes a stranger from sign-up to an active member with the package they chose', async () => {
    const hook = await admin('POST', '/webhooks', { url: receiver.url, categories: ['signUp'] });
    expect(hook.statusCode).toBe(201);
    const res = await signUp({ emailAddress: 'Grace@Join.example', firstName: 'Grace', lastName: 'Hopper' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ status: 'pending', confirmationMailed: true });
    // Signing up twice is refused: one member per address.
    expect((await signUp({ emailAddress: 'grace@join.example' })).statusCode).toBe(409);

    const [pending] = await signUps();
    expect(pending).toMatchObject({
      firstName: 'Grace',
      emailAddress: 'Grace@Join.example',
      status: 'pending',
      package: { id: full },
      acceptedVersion: 1,
      checklist: {
        emailConfirmed: false,
        houseRulesAccepted: true,
        keyCard: false,
        training: null,
        firstPayment: null,
      },
      missing: ['e-mail not confirmed', 'no key card assigned'],
    });
    expect((await memberOf(pending.member)).state).toBe('pending');
    const event = await waitFor('signUp_created', () =>
      receiver.received.find((r) => r.json.type === 'signUp_created'),
    );
    expect(event.json.details).toMatchObject({
      signUp: { id: pending.id, status: 'pending', package: { id: full } },
      member: { id: pending.member, state: 'pending' },
    });
    expect(await pendingSignUps(t.hub.ctx.db, t.owner.accountId)).toMatchObject([
      { id: pending.id, firstName: 'Grace', emailConfirmed: false },
    ]);

    // Approval waits for the checklist, naming what is missing.
    const early = await admin('POST', `/sign-ups/${pending.id}/approve`);
    expect(early.statusCode).toBe(422);
    expect(early.json().data.missing).toEqual(['e-mail not confirmed', 'no key card assigned']);

    // The mail server writes the domain in lower case.
    const letter = await mail.next('Grace@join.example');
    expect(letter.text).toMatch(/Confirm your e-mail address/);
    const token = confirmToken(letter.text);
    const confirmed = await anon('POST', '/sign-ups/confirm', { token });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toEqual({ emailAddress: 'Grace@Join.example', status: 'pending' });
    // The link opened twice answers the same.
    expect((await anon('POST', '/sign-ups/confirm', { token })).statusCode).toBe(200);
    expect((await anon('POST', '/sign-ups/confirm', { token: 'not-a-token' })).statusCode).toBe(400);

    // A card for the door; the pending member is refused there, with words that say why.
    expect(
      (await admin('PUT', `/members/${pending.member}/key`, { type: 'em4102', token: '5A5A000001' }))
        .statusCode,
    ).toBeLessThan(300);
    const refused = await tap('5A5A000001');
    expect(refused.json()).toMatchObject({ type: 'denied', reason: 'memberInactive' });
    expect((await admin('GET', `/members/${pending.member}/packages`)).json()).toEqual([]);
    expect((await admin('GET', `/charges?member=${pending.member}`)).json()).toEqual([]);
    // No package behind the sign-up's back: billing refuses it while the member is pending.
    const sideways = await admin('POST', `/members/${pending.member}/packages`, { package: full });
    expect(sideways.statusCode).toBe(422);

    const approved = await admin('POST', `/sign-ups/${pending.id}/approve`);
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', missing: [] });
    expect((await memberOf(pending.member)).state).toBe('active');
    const held = (await admin('GET', `/members/${pending.member}/packages`)).json();
    expect(held).toMatchObject([{ package: full }]);
    const charges = (await admin('GET', `/charges?member=${pending.member}`)).json();
    expect(charges.length).toBeGreaterThan(0);
    expect((await tap('5A5A000001')).json()).toMatchObject({ type: 'allowed' });
    expect((await admin('POST', `/sign-ups/${pending.id}/approve`)).statusCode).toBe(409);
    expect(await pendingSignUps(t.hub.ctx.db, t.owner.accountId)).toEqual([]);

    // The new member signs in with a mailed link.
    await anon('POST', '/user/sign-in-links', { emailAddress: 'grace@join.example', purpose: 'signIn' });
    // Notifications (her first charges) reach her too: take the mail with the link.
    let signIn = await mail.next('Grace@join.example');
    while (!signIn.text.includes('/sign-in/link#token=')) signIn = await mail.next('Grace@join.example');
    const session = await anon('POST', '/user/sign-in-links/redeem', { token: linkToken(signIn) });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toMatchObject({ member: { firstName: 'Grace' } });
  });

  it('refuses an expired confirmation link with 410 and mails a new one on request', async () => {
    expect((await signUp({ emailAddress: 'late@join.example', firstName: 'Late' })).statusCode).toBe(201);
    const old = confirmToken((await mail.next('late@join.example')).text);
    shift = 3 * 86_400_000;
    try {
      const expired = await anon('POST', '/sign-ups/confirm', { token: old });
      expect(expired.statusCode).toBe(410);
      expect(expired.json().message).toMatch(/expired: ask for a new one/);
      const ask = await anon('POST', '/sign-ups/confirm-links', { emailAddress: 'LATE@join.example' });
      expect(ask.statusCode).toBe(202);
      // Unknown addresses get the same answer and no mail.
      expect(
        (await anon('POST', '/sign-ups/confirm-links', { emailAddress: 'nobody@join.example' })).statusCode,
      ).toBe(202);
      const fresh = confirmToken((await mail.next('late@join.example')).text);
      expect((await anon('POST', '/sign-ups/confirm', { token: old })).statusCode).toBe(400);
      expect((await anon('POST', '/sign-ups/confirm', { token: fresh })).statusCode).toBe(200);
    } finally {
      shift = 0;
    }
  });

  it('tells a pending member at the door why: the sign-up waits for approval', async () => {
    const rule = coreRules().find((r) => r.name === 'memberState');
    const verdict = await rule?.check({ member: { state: 'pending' } } as never);
    expect(verdict).toMatchObject({
      deny: 'memberInactive',
      message: 'Your sign-up is waiting for approval by the space',
    });
    expect(await rule?.check({ member: { state: 'locked' } } as never)).toEqual({ deny: 'memberInactive' });
  });

  it('rejects a sign-up: the member stays locked and cannot be approved later', async () => {
    await signUp({ emailAddress: 'nope@join.example', firstName: 'Nope' });
    const row = (await signUps()).find((s) => s.emailAddress === 'nope@join.example');
    const res = await admin('POST', `/sign-ups/${row.id}/reject`, { reason: 'Not from here' });
    expect(res.json()).toMatchObject({ status: 'rejected', rejectReason: 'Not from here' });
    expect((await memberOf(row.member)).state).toBe('locked');
    expect((await admin('POST', `/sign-ups/${row.id}/approve`)).statusCode).toBe(409);
    expect((await signUp({ emailAddress: 'nope@join.example' })).statusCode).toBe(409);
  });

  it('throttles a flood of sign-ups from one address', async () => {
    const ip = '127.9.9.9';
    for (let i = 0; i < 10; i++) {
      const res = await signUp({ emailAddress: `flood${i}@join.example`, website: 'x' }, { ip });
      expect(res.statusCode).toBe(201);
    }
    const blocked = await signUp({ emailAddress: 'flood10@join.example' }, { ip });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signUps()).some((s) => s.emailAddress === 'flood10@join.example')).toBe(false);
    // Another address is not held up.
    expect((await signUp({ emailAddress: 'calm@join.example' })).statusCode).toBe(201);
  });

  it('without a mail server, the admin sees "e-mail not confirmed" and confirms by hand', async () => {
    const pkg = (await api(bare, bare.owner.token, 'POST', '/packages', { name: 'Basic' })).json().id;
    await openSignUp(bare, pkg);
    const res = await signUp({ emailAddress: 'nomail@join.example', package: pkg }, { hub: bare });
    expect(res.json()).toEqual({ status: 'pending', confirmationMailed: false });
    const [row] = await signUps(bare);
    expect(row.missing).toEqual(['e-mail not confirmed']);
    const byHand = await api(bare, bare.owner.token, 'POST', `/sign-ups/${row.id}/confirm-email`);
    expect(byHand.json()).toMatchObject({ emailConfirmedBy: 'admin', missing: [] });
    expect((await api(bare, bare.owner.token, 'POST', `/sign-ups/${row.id}/approve`)).json().status).toBe(
      'approved',
    );
    // A plain member cannot see the queue.
    const plain = await bare.newMemberWithToken('Plain', 'Member');
    expect((await api(bare, plain.token, 'GET', '/sign-ups')).statusCode).toBe(403);
  });

  it('asks members to accept a changed version and exports who accepted which', async () => {
    const member = await t.newMemberWithToken('Rita', 'Rules');
    const before = (await api(t, member.token, 'GET', '/user/house-rules')).json();
    expect(before).toMatchObject({ version: 1, accepted: false });
    await admin('PUT', `/spaces/${space}/house-rules`, {
      houseRules: '<p>Clean up after yourself. Wear goggles.</p>',
      waiver: '<p>I use the machines at my own risk.</p>',
    });
    const changed = (await api(t, member.token, 'GET', '/user/house-rules')).json();
    expect(changed).toMatchObject({
      version: 2,
      accepted: false,
      houseRules: expect.stringContaining('goggles'),
    });
    expect((await api(t, member.token, 'POST', '/user/house-rules/accept', { version: 1 })).statusCode).toBe(
      409,
    );
    const accepted = await api(t, member.token, 'POST', '/user/house-rules/accept', { version: 2 });
    expect(accepted.json()).toMatchObject({ version: 2, accepted: true });
    // A sign-up now must accept version 2.
    expect((await signUp({ emailAddress: 'v1@join.example', acceptedVersion: 1 })).statusCode).toBe(422);

    const json = (await admin('GET', `/spaces/${space}/house-rules/acceptances`)).json();
    expect(json).toContainEqual(expect.objectContaining({ member: member.id, version: 2, via: 'app' }));
    expect(json).toContainEqual(
      expect.objectContaining({ emailAddress: 'Grace@Join.example', version: 1, via: 'signUp' }),
    );
    const csv = await admin('GET', `/spaces/${space}/house-rules/acceptances?format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('member,firstName,lastName,emailAddress,version,acceptedAt,via');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${member.id},Rita,Rules,,2,.*,app$`)));
    expect((await api(t, member.token, 'GET', `/spaces/${space}/house-rules/acceptances`)).statusCode).toBe(
      403,
    );
  });
});
