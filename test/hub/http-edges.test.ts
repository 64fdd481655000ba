import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { lazyRequestLogger, parseTrustProxy } from '../../hub/src/http/server-options.js';
import { settingsFromEnv } from '../../hub/src/settings.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const hubs: TestHub[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const h of hubs.splice(0)) await h.close();
});

async function hubWith(settings: Parameters<typeof startTestHub>[1] = {}) {
  const t = await startTestHub('sqlite', settings);
  hubs.push(t);
  return t;
}

/** Opens a raw connection, sends `first`, and resolves what the server sent once it closed. */
function slowClient(port: number, first: string): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(first));
    sockets.push(socket);
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
  });
}

describe('HTTP timeouts', () => {
  it('cuts off a client that sends its body a byte at a time', async () => {
    const t = await hubWith({ settings: { httpLimits: { requestTimeoutMs: 600, headersTimeoutMs: 400 } } });
    const { httpUrl } = await t.listen();
    const port = Number(new URL(httpUrl).port);
    const answer = await slowClient(
      port,
      `POST /api/v1/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.owner.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    expect(answer.text).toMatch(/^HTTP\/1\.1 408/);
    expect(answer.closedAfterMs).toBeLessThan(5_000);
  });

  it('cuts off a client that never finishes its headers', async () => {
    const t = await hubWith({ settings: { httpLimits: { requestTimeoutMs: 600, headersTimeoutMs: 400 } } });
    const { httpUrl } = await t.listen();
    const answer = await slowClient(Number(new URL(httpUrl).port), 'GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(answer.text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('refuses a body over the limit with 413 and stores nothing', async () => {
    const t = await hubWith({ settings: { httpLimits: { bodyLimit: 1000 } } });
    const res = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/resource-types',
      payload: { name: 'x'.repeat(2000) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().statusCode).toBe(413);
    expect((await t.call(t.owner.token, { url: '/api/v1/resource-types' })).json()).toEqual([]);
  });
});

describe('proxies and absolute URLs', () => {
  const forwarded = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
  const nextLink = async (t: TestHub, headers: Record<string, string>, remoteAddress = '127.0.0.1') => {
    const res = await t.app.inject({
      url: '/api/v1/members?limit=1',
      headers: { authorization: `Bearer ${t.owner.token}`, host: 'hub.lan:8080', ...headers },
      remoteAddress,
    });
    return res.headers.link as string;
  };
  const twoMembers = async (t: TestHub) => {
    await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/members',
      payload: { firstName: 'B', emailAddress: 'b@x.example' },
    });
  };

  it('trusts no forwarded header by default', async () => {
    const t = await hubWith();
    await twoMembers(t);
    expect(await nextLink(t, forwarded)).toMatch(/^<http:\/\/hub\.lan:8080\/api\/v1\/members\?/);
  });

  it('trusts forwarded headers only from the proxies HUB_TRUST_PROXY names', async () => {
    const t = await hubWith({ settings: { trustProxy: ['10.0.0.5'] } });
    await twoMembers(t);
    expect(await nextLink(t, forwarded, '10.0.0.5')).toMatch(/^<https:\/\/evil\.example\/api\/v1\/members\?/);
    expect(await nextLink(t, forwarded, '10.0.0.6')).toMatch(/^<http:\/\/hub\.lan:8080\//);
  });

  it('takes every absolute URL from HUB_PUBLIC_URL when it is set', async () => {
    const t = await hubWith({
      settings: { publicUrl: 'https://access.fablab.example', trustProxy: ['127.0.0.1'] },
    });
    await twoMembers(t);
    expect(await nextLink(t, forwarded)).toMatch(/^<https:\/\/access\.fablab\.example\/api\/v1\/members\?/);
    const token = await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/spaces/${t.owner.spaceId}/calendar-token`,
      headers: forwarded,
    });
    expect(token.statusCode).toBe(200);
    expect(JSON.stringify(token.json())).toContain('https://access.fablab.example/api/v1/calendar/');
    expect(JSON.stringify(token.json())).not.toContain('evil.example');
  });

  it('reads HUB_TRUST_PROXY as a list and names a bad entry', () => {
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1,loopback')).toEqual({
      proxies: ['127.0.0.1', '10.0.0.0/8', '::1', 'loopback'],
      problems: [],
    });
    expect(parseTrustProxy(undefined).proxies).toEqual([]);
    expect(() => settingsFromEnv({ HUB_TRUST_PROXY: 'true' })).toThrow(/HUB_TRUST_PROXY.*"true"/s);
    expect(() => settingsFromEnv({ HUB_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/HUB_TRUST_PROXY/);
    expect(settingsFromEnv({}).trustProxy).toEqual([]);
  });
});

describe('the errors list on error bodies', () => {
  const call = (t: TestHub, method: string, url: string, payload?: object) =>
    t.call(t.owner.token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });

  it('names each bad field once on a 400, keeps the other fields, and stores nothing', async () => {
    const t = await hubWith();
    const before = (await call(t, 'GET', '/members')).headers['x-total-count'];
    const res = await call(t, 'POST', '/members', {
      firstName: 5,
      emailAddress: 'not an address',
      lastName: 'X',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      data: { validation: expect.any(Array) },
    });
    expect(body.message).toMatch(/firstName/);
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['emailAddress', 'firstName']);
    for (const e of body.errors) expect(typeof e.message).toBe('string');
    expect((await call(t, 'GET', '/members')).headers['x-total-count']).toBe(before);

    // A bad query value: the same list.
    const form = await t.call(t.owner.token, {
      method: 'GET',
      url: '/api/v1/members?limit=many',
    });
    expect(form.statusCode).toBe(400);
    expect(form.json().errors).toEqual([{ field: 'limit', message: expect.any(String) }]);
  });

  it('carries one entry for a 404 and a 409', async () => {
    const t = await hubWith();
    const missing = await call(t, 'GET', '/members/987654');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(missing.json().errors).toEqual([{ message: missing.json().message }]);

    const course = (await call(t, 'POST', '/training-courses', { title: 'Laser safety' })).json();
    expect(
      (await call(t, 'PUT', `/training-courses/${course.id}`, { title: 'A', lockVersion: 1 })).statusCode,
    ).toBe(200);
    const stale = await call(t, 'PUT', `/training-courses/${course.id}`, { title: 'B', lockVersion: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ data: { staleLockVersion: true } });
    expect(stale.json().errors).toEqual([{ message: stale.json().message }]);
  });
});

describe('request loggers', () => {
  it('are made when first used, with the request id, at the level a route asks for', () => {
    const out = new PassThrough();
    const lines: string[] = [];
    out.on('data', (chunk) => lines.push(...String(chunk).trim().split('\n')));
    const hub = createLogger({ name: 'hub', level: 'info', destination: out, pretty: false });
    let children = 0;
    const counting = Object.assign(Object.create(hub), {
      child: (...args: Parameters<typeof hub.child>) => {
        children++;
        return hub.child(...args);
      },
    });
    const quiet = lazyRequestLogger(counting, { reqId: 'req-1' }, {});
    expect(children).toBe(0);
    expect(quiet.level).toBe('info');
    quiet.debug('not shown');
    quiet.error({ code: 7 }, 'request failed');
    expect(children).toBe(1);
    const debugging = lazyRequestLogger(counting, { reqId: 'req-2' }, { level: 'debug' });
    debugging.debug('shown');
    const logged = lines.map((l) => JSON.parse(l));
    expect(logged).toMatchObject([
      { reqId: 'req-1', code: 7, msg: 'request failed', level: 50 },
      { reqId: 'req-2', msg: 'shown', level: 20 },
    ]);
    expect(logged).toHaveLength(2);
  });
});
