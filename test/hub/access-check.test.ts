import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The machine page's API (issue 12): the verdict before pressing (access-check) runs the same
 * policy as switch-on, so the two never disagree; old stickers are "out of date", not guesses;
 * the right to the resource is checked before the code; the QR sticker; the live channel.
 */
describeEachDialect('access check, stale stickers, stickers and the live channel', (dialect) => {
  let t: TestHub;
  let now = new Date('2026-03-23T09:00:00.000Z'); // Monday 10:00 in Vienna
  let owner: string;
  let space: number;
  let mqttUrl: string;
  let httpUrl: string;
  const agents: FakeAgent[] = [];
  let printer: { id: number; switchOnCode: string; lockVersion: number };
  let laser: { id: number; switchOnCode: string };
  let ada: { id: number; token: string };
  let ben: { id: number; token: string };
  let nopkg: { id: number; token: string };

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const at = (iso: string) => {
    now = new Date(iso);
  };
  const check = async (token: string, id: number, code?: string) =>
    (
      await api(
        token,
        'GET',
        `/resources/${id}/access-check${code ? `?code=${encodeURIComponent(code)}` : ''}`,
      )
    ).json();
  const switchOn = (token: string, id: number, code: string) =>
    api(token, 'POST', `/resources/${id}/switch-on`, { code });

  async function machine(body: Record<string, unknown>, connect = true) {
    const r = (await api(owner, 'POST', '/resources', { space, controlType: 'machine', ...body })).json();
    await api(owner, 'PUT', `/resources/${r.id}/bridge`, {});
    const key = (await api(owner, 'GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey;
    if (connect) agents.push(await connectFakeAgent(mqttUrl, r.id, key));
    return r;
  }
  async function member(name: string) {
    const m = (
      await api(owner, 'POST', '/members', {
        firstName: name,
        emailAddress: `${name.toLowerCase()}@check.example`,
      })
    ).json();
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    return {
      id: m.id as number,
      token: (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string,
    };
  }
  async function givePackage(memberId: number) {
    const pkg = (await api(owner, 'POST', '/packages', { name: `Package ${memberId}` })).json();
    await api(owner, 'POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await api(owner, 'POST', `/members/${memberId}/packages`, { package: pkg.id, fromDate: '2026-01-01' });
  }

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    owner = t.owner.token;
    ({ mqttUrl, httpUrl } = await t.listen());
    t.hub.ctx.linkBase = 'https://space.example';
    space = t.owner.spaceId;
    const current = (await api(owner, 'GET', `/spaces/${space}`)).json();
    await api(owner, 'PUT', `/spaces/${space}`, {
      lockVersion: current.lockVersion,
      timezone: 'Europe/Vienna',
    });
    const weekdays = [1, 2, 3, 4, 5].map((dayOfWeek) => ({
      dayOfWeek,
      fromTime: '09:00',
      untilTime: '18:00',
    }));
    await api(owner, 'PUT', `/spaces/${space}/opening-hours`, weekdays);
    await api(owner, 'POST', `/spaces/${space}/holidays`, {
      title: 'Closed',
      fromDateTime: '2026-03-25T00:00',
      untilDateTime: '2026-03-26T00:00',
    });
    printer = await machine({ name: 'Prusa', canBeBooked: true });
    laser = await machine({ name: 'Laser', requiresTraining: true });
    await api(owner, 'POST', '/training-courses', { title: 'Laser basics', resources: [laser.id] });
    ada = await member('Ada');
    ben = await member('Ben');
    nopkg = await member('Nopkg');
    await givePackage(ada.id);
    await givePackage(ben.id);
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await t?.close();
  });

  /** The verdict and switch-on agree: same reason, and allowed means 200. */
  async function agree(token: string, r: { id: number; switchOnCode: string }) {
    const verdict = await check(token, r.id, r.switchOnCode);
    const res = await switchOn(token, r.id, r.switchOnCode);
    if (verdict.allowed) {
      expect(res.statusCode).toBe(200);
      await api(owner, 'POST', `/resources/${r.id}/bridge/switch-off`);
    } else {
      expect(res.json().data.reason).toBe(
        verdict.reason === 'bridgeOffline' ? 'bridgeOffline' : verdict.reason,
      );
    }
    return verdict;
  }

  it('allowed: says so, with the session limit up to closing time, and switch-on works', async () => {
    at('2026-03-23T09:00:00.000Z');
    const verdict = await agree(ada.token, printer);
    expect(verdict).toMatchObject({
      allowed: true,
      reason: null,
      maxDuration: 8 * 3600,
      timezone: 'Europe/Vienna',
    });
    expect(verdict.resource).toMatchObject({ id: printer.id, name: 'Prusa', controlType: 'machine' });
    expect(verdict.status).toMatchObject({ bridge: true, online: true });
  });

  it('closed on Saturday: openingHours until Monday 09:00 Vienna time', async () => {
    at('2026-03-28T10:00:00.000Z');
    const verdict = await agree(ada.token, printer);
    expect(verdict).toMatchObject({
      allowed: false,
      reason: 'openingHours',
      until: '2026-03-30T07:00:00.000Z',
    });
  });

  it('a holiday: until the holiday ends', async () => {
    at('2026-03-25T10:00:00.000Z');
    const verdict = await agree(ada.token, printer);
    expect(verdict).toMatchObject({ reason: 'holiday', until: '2026-03-25T23:00:00.000Z' });
  });

  it('booked by another member: until the booking ends; the booker is allowed', async () => {
    at('2026-03-24T07:00:00.000Z');
    const booking = await api(ben.token, 'POST', '/bookings', {
      resource: printer.id,
      fromDateTime: '2026-03-24T13:00:00.000Z',
      untilDateTime: '2026-03-24T14:30:00.000Z',
    });
    expect(booking.statusCode).toBe(201);
    at('2026-03-24T13:30:00.000Z');
    expect(await agree(ada.token, printer)).toMatchObject({
      reason: 'booking',
      until: '2026-03-24T14:30:00.000Z',
    });
    expect((await agree(ben.token, printer)).allowed).toBe(true);
  });

  it('training missing: names the course', async () => {
    at('2026-03-23T09:00:00.000Z');
    const verdict = await agree(ada.token, laser);
    expect(verdict.reason).toBe('noPermission');
    expect(verdict.trainingCourses.map((c: { title: string }) => c.title)).toEqual(['Laser basics']);
  });

  it('no package: refused before the code is looked at, so a wrong code teaches nothing and is not counted', async () => {
    at('2026-03-23T09:00:00.000Z');
    expect((await check(nopkg.token, printer.id)).reason).toBe('noPackage');
    for (let i = 0; i < 7; i++) {
      const res = await switchOn(nopkg.token, printer.id, `WRONG${i}X`);
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('noPackage');
    }
    const right = await switchOn(nopkg.token, printer.id, printer.switchOnCode);
    expect(right.json().data.reason).toBe('noPackage');
  });

  it('bridge offline: the verdict says so and switch-on answers 503', async () => {
    at('2026-03-23T09:00:00.000Z');
    const offline = await machine({ name: 'Unplugged' }, false);
    const verdict = await check(ada.token, offline.id);
    expect(verdict).toMatchObject({ allowed: false, reason: 'bridgeOffline' });
    const res = await switchOn(ada.token, offline.id, offline.switchOnCode);
    expect(res.statusCode).toBe(503);
  });

  it('an old sticker is out of date: refused as staleCode, never counted toward the lock-out', async () => {
    at('2026-03-23T10:00:00.000Z');
    const old = printer.switchOnCode;
    const current = (await api(owner, 'GET', `/resources/${printer.id}`)).json();
    const changed = await api(owner, 'PUT', `/resources/${printer.id}`, {
      lockVersion: current.lockVersion,
      switchOnCode: null,
    });
    expect(changed.statusCode).toBe(200);
    printer = changed.json();
    expect(printer.switchOnCode).not.toBe(old);
    expect((await check(ada.token, printer.id, old)).reason).toBe('staleCode');
    // Case and spaces do not matter: what was printed was the same code.
    expect((await check(ada.token, printer.id, ` ${old.toLowerCase()}`)).reason).toBe('staleCode');
    for (let i = 0; i < 7; i++) {
      const res = await switchOn(ada.token, printer.id, old);
      expect(res.statusCode).toBe(403);
      expect(res.json().data.reason).toBe('staleCode');
    }
    // Neither the current code nor a random one is revealed by the check.
    expect((await check(ada.token, printer.id, printer.switchOnCode)).allowed).toBe(true);
    expect((await check(ada.token, printer.id, 'ZZZZZZZZ')).allowed).toBe(true);
    const res = await switchOn(ada.token, printer.id, printer.switchOnCode);
    expect(res.statusCode).toBe(200);
    await api(owner, 'POST', `/resources/${printer.id}/bridge/switch-off`);
  });

  it('wrong codes lock out with the real remaining time in Retry-After and in the verdict', async () => {
    at('2026-03-23T11:00:00.000Z');
    for (let i = 0; i < 5; i++) {
      expect((await switchOn(ben.token, printer.id, `BADCODE${i}`)).json().data.reason).toBe('wrongCode');
    }
    at('2026-03-23T11:04:00.000Z');
    const locked = await switchOn(ben.token, printer.id, printer.switchOnCode);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBe(360);
    expect(locked.json().data.retryAfter).toBe(360);
    expect(await check(ben.token, printer.id)).toMatchObject({ reason: 'tooManyAttempts', retryAfter: 360 });
    at('2026-03-23T11:10:01.000Z');
    expect((await check(ben.token, printer.id)).allowed).toBe(true);
  });

  it('refuses switch-on codes shorter than 6 characters', async () => {
    const current = (await api(owner, 'GET', `/resources/${laser.id}`)).json();
    const res = await api(owner, 'PUT', `/resources/${laser.id}`, {
      lockVersion: current.lockVersion,
      switchOnCode: 'ABCD',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('switchOnCode');
  });

  it('the QR sticker encodes the machine page with the code, for admins only', async () => {
    const svg = await api(owner, 'GET', `/resources/${printer.id}/sticker`);
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toContain('image/svg+xml');
    expect(svg.headers['cache-control']).toBe('no-store');
    expect(svg.body).toContain('Prusa');
    const png = await api(owner, 'GET', `/resources/${printer.id}/sticker?format=png`);
    expect(png.headers['content-type']).toBe('image/png');
    const image = PNG.sync.read(png.rawPayload);
    const qr = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(qr?.data).toBe(`https://space.example/r/${printer.id}?c=${printer.switchOnCode}`);
    expect((await api(ada.token, 'GET', `/resources/${printer.id}/sticker`)).statusCode).toBe(403);
  });

  it('the sticker speaks English by default and German when asked', async () => {
    const en = await api(owner, 'GET', `/resources/${printer.id}/sticker`);
    expect(en.body).toContain('Scan to switch on');
    const de = await api(owner, 'GET', `/resources/${printer.id}/sticker?lang=de`);
    expect(de.body).toContain('Zum Einschalten scannen');
    expect(de.body).not.toContain('Scan to');
    expect((await api(owner, 'GET', `/resources/${printer.id}/sticker?lang=fr`)).statusCode).toBe(400);
  });

  it('the live channel sends a snapshot, then each change the member may see', async () => {
    at('2026-03-23T09:00:00.000Z');
    const controller = new AbortController();
    const res = await fetch(`${httpUrl}/api/v1/live`, {
      headers: { authorization: `Bearer ${ada.token}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const read = async (pattern: RegExp) =>
      eventually(
        async () => {
          const { value } = await reader.read();
          text += new TextDecoder().decode(value);
          return pattern.test(text);
        },
        5_000,
        `live text matching ${pattern}`,
      );
    await read(/event: snapshot\ndata: .*"resource":\d+/);
    const snapshot = JSON.parse(text.match(/event: snapshot\ndata: (.*)\n/)![1]);
    expect(snapshot.resources.find((s: any) => s.resource === printer.id)).toMatchObject({
      online: true,
      session: null,
    });
    text = '';
    expect((await switchOn(ada.token, printer.id, printer.switchOnCode)).statusCode).toBe(200);
    await read(/"mine":true/);
    const change = JSON.parse(text.match(/event: resource\ndata: (.*"mine":true.*)\n/)![1]);
    expect(change.status).toMatchObject({
      resource: printer.id,
      session: { mine: true, member: { id: ada.id } },
    });
    controller.abort();
    // Bad input answers 400 at once instead of opening a stream.
    const bad = await fetch(`${httpUrl}/api/v1/live?resource=abc`, {
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('resource');
    // Another member sees the session without the name of who runs it.
    const other = await check(ben.token, printer.id);
    expect(other.status.session).toMatchObject({ mine: false, member: null });
    await api(owner, 'POST', `/resources/${printer.id}/bridge/switch-off`);
  });
});
