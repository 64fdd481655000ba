import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The API the admin console needs (issue 13): pairing codes, recent unknown cards, and the
 * admins' activity feed in the live channel, on every dialect.
 */
describeEachDialect('admin console API: pairing, unknown cards, the live feed', (dialect) => {
  let t: TestHub;
  let owner: string;
  let space: number;
  let mqttUrl: string;
  let httpUrl: string;
  let door: { id: number };
  let agent: FakeAgent;
  let ada: { id: number; token: string };
  const now = new Date('2026-03-23T09:00:00.000Z');

  const api = (token: string | null, method: string, url: string, payload?: unknown) =>
    t.call(token as string, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => now } });
    owner = t.owner.token;
    ({ mqttUrl, httpUrl } = await t.listen());
    t.hub.ctx.linkBase = 'https://space.example';
    space = t.owner.spaceId;
    door = (
      await api(owner, 'POST', '/resources', { space, name: 'Front door', controlType: 'door' })
    ).json();
    const m = (
      await api(owner, 'POST', '/members', { firstName: 'Ada', emailAddress: 'ada@feed.example' })
    ).json();
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    ada = { id: m.id, token: (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token };
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await t?.close();
  });

  it('a pairing code is made by admins, redeemed once without credentials, and creates the bridge', async () => {
    expect((await api(ada.token, 'POST', `/resources/${door.id}/bridge/pairing-codes`)).statusCode).toBe(403);
    const made = await api(owner, 'POST', `/resources/${door.id}/bridge/pairing-codes`);
    expect(made.statusCode).toBe(201);
    const { code, command, expiresAt } = made.json();
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{4}(-[2-9A-HJKMNP-Z]{4}){3}$/);
    expect(command).toBe(`makerspace-agent pair https://space.example ${code}`);
    expect(expiresAt).toBe('2026-03-23T09:30:00.000Z');
    const redeem = (c: string) =>
      t.hub.app.inject({ method: 'POST', url: '/api/v1/bridge-pairings/redeem', payload: { code: c } });
    const res = await redeem(code);
    expect(res.statusCode).toBe(200);
    const paired = res.json();
    expect(paired).toMatchObject({ resource: door.id, name: 'Front door', controlType: 'door' });
    expect((await api(owner, 'GET', `/resources/${door.id}/bridge/api-key`)).json().apiKey).toBe(
      paired.apiKey,
    );
    const again = await redeem(code);
    expect(again.statusCode).toBe(400);
    expect(again.json().data.validation[0].path).toBe('code');
    // The key works: the bridge connects with it.
    agent = await connectFakeAgent(mqttUrl, door.id, paired.apiKey);
    await agent.publish('status', {
      online: true,
      agentVersion: '9.9.9',
      hardware: 'simulated',
      startedAt: now.toISOString(),
    });
    await eventually(
      async () => (await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().offline === false,
    );
  });

  it('drops a bridge message whose strings carry control characters, and keeps what it had', async () => {
    // A NUL in agentVersion would be stored and shown on every admin page.
    await agent.publish('status', {
      online: true,
      agentVersion: 'a\u0000b',
      hardware: 'simulated',
      startedAt: now.toISOString(),
    });
    // A log's acknowledgement marks that the hub has handled the messages sent before it.
    const id = randomUUID();
    await agent.publish('logs', {
      items: [
        {
          kind: 'log',
          id,
          type: 'allowed',
          createdAt: now.toISOString(),
          stoppedAt: now.toISOString(),
          offline: true,
        },
      ],
    });
    await eventually(() => agent.acks.some((ids) => ids.includes(id)));
    expect((await api(owner, 'GET', `/resources/${door.id}/bridge`)).json().agentVersion).toBe('9.9.9');
  });

  it('an expired code is refused', async () => {
    const { code } = (await api(owner, 'POST', `/resources/${door.id}/bridge/pairing-codes`)).json();
    const later = new Date(now.getTime() + 31 * 60_000);
    now.setTime(later.getTime());
    const res = await t.hub.app.inject({
      method: 'POST',
      url: '/api/v1/bridge-pairings/redeem',
      payload: { code },
    });
    now.setTime(Date.parse('2026-03-23T09:00:00.000Z'));
    expect(res.statusCode).toBe(400);
  });

  it("admins' live channel carries every new resource log of their account; members' does not", async () => {
    const open = async (token: string) => {
      const controller = new AbortController();
      const res = await fetch(`${httpUrl}/api/v1/live`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const state = { text: '' };
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            state.text += new TextDecoder().decode(value);
          }
        } catch {
          // aborted
        }
      })();
      await eventually(() => state.text.includes('event: snapshot'), 5_000, 'snapshot');
      return { state, close: () => controller.abort() };
    };
    const adminFeed = await open(owner);
    const memberFeed = await open(ada.token);
    // An unknown card at the door, decided by the hub.
    await agent.publish('access', {
      id: randomUUID(),
      keys: [{ type: 'em4102', token: 'BADC0FFEE1' }],
      currentSession: null,
    });
    // An offline decision the bridge made alone, reported late.
    await agent.publish('logs', {
      items: [
        {
          kind: 'log',
          id: randomUUID(),
          type: 'allowed',
          createdAt: '2026-03-23T08:50:00.000Z',
          stoppedAt: '2026-03-23T08:50:00.000Z',
          memberId: ada.id,
          offline: true,
        },
      ],
    });
    const logs = await eventually(
      () => {
        const found = [...adminFeed.state.text.matchAll(/event: log\ndata: (.*)\n/g)].map(
          (m) => JSON.parse(m[1]).log,
        );
        return found.length >= 2 ? found : null;
      },
      5_000,
      'two log events',
    );
    expect(logs[0]).toMatchObject({
      resource: door.id,
      type: 'denied',
      reason: 'unknownKey',
      member: null,
      card: { type: 'em4102', token: 'BADC0FFEE1' },
      offline: false,
    });
    expect(logs[1]).toMatchObject({
      type: 'allowed',
      offline: true,
      member: { id: ada.id, firstName: 'Ada' },
      createdAt: '2026-03-23T08:50:00.000Z',
    });
    expect(memberFeed.state.text).not.toContain('event: log');
    adminFeed.close();
    memberFeed.close();

    // The refused card is among the unknown cards until someone owns it.
    const unknown = (await api(owner, 'GET', '/unknown-cards')).json();
    expect(unknown).toEqual([
      { type: 'em4102', token: 'BADC0FFEE1', lastSeenAt: expect.any(String), resource: door.id, taps: 1 },
    ]);
    expect((await api(ada.token, 'GET', '/unknown-cards')).statusCode).toBe(403);
    expect((await api(owner, 'GET', '/unknown-cards?days=0')).statusCode).toBe(400);
    await api(owner, 'PUT', `/members/${ada.id}/key`, { type: 'em4102', token: 'BADC0FFEE1' });
    expect((await api(owner, 'GET', '/unknown-cards')).json()).toEqual([]);
  });

  it('member search finds a member by card id (whole, any case) as well as by name', async () => {
    const ids = async (q: string) =>
      (await api(owner, 'GET', `/members?q=${encodeURIComponent(q)}`)).json().map((m: any) => m.id);
    expect(await ids('badc0ffee1')).toEqual([ada.id]);
    expect(await ids('BADC0FFEE1')).toEqual([ada.id]);
    // Part of a card id is no match (card ids are read whole), part of a name is.
    expect(await ids('BADC0F')).toEqual([]);
    expect(await ids('ad')).toContain(ada.id);
    // A member searching sees only themself.
    expect((await api(ada.token, 'GET', '/members?q=BADC0FFEE1')).json().map((m: any) => m.id)).toEqual([
      ada.id,
    ]);
  });
});
