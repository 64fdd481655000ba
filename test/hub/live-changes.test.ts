import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The live channel with `format=changes` (what the web app asks for): the snapshot, then one
 * `changes` event per batch with only the fields that changed; a stream that joins later gets
 * whole states in its first batch, then only what changed, like the others.
 */
describeEachDialect('live channel: changes as the fields that changed', (dialect) => {
  let t: TestHub;
  let httpUrl: string;
  let agent: FakeAgent;
  let machine: number;
  let code: string;
  const controller = new AbortController();

  beforeAll(async () => {
    t = await startTestHub(dialect);
    const urls = await t.listen();
    httpUrl = urls.httpUrl;
    const api = (method: string, url: string, payload?: unknown) =>
      t.call(t.owner.token, { method: method as any, url: `/api/v1${url}`, payload: payload as any });
    const r = (
      await api('POST', '/resources', { space: t.owner.spaceId, name: 'Lathe', controlType: 'machine' })
    ).json();
    machine = r.id;
    code = r.switchOnCode;
    await api('PUT', `/resources/${machine}/bridge`, {});
    const key = (await api('GET', `/resources/${machine}/bridge/api-key`)).json().apiKey;
    agent = await connectFakeAgent(urls.mqttUrl, machine, key);
    // The agent's status (its version) is stored after the connect that marks it online.
    await eventually(
      async () => {
        const bridge = (await api('GET', `/resources/${machine}/bridge`)).json();
        return bridge.agentVersion === 'test' && !bridge.offline;
      },
      5_000,
      "the agent's status",
    );
  });

  afterAll(async () => {
    controller.abort();
    await agent.close();
    await t.close();
  });

  /** A live stream read as events (the owner's, unless told): `next(type)` waits for the next event of that type. */
  async function stream(query: string, token = t.owner.token) {
    const res = await fetch(`${httpUrl}/api/v1/live${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events: { type: string; data: any }[] = [];
    return {
      async next(type: string) {
        return eventually(
          async () => {
            for (;;) {
              const match = /event: (\w+)\ndata: (.*)\n\n/.exec(text);
              if (!match) break;
              text = text.slice(match.index + match[0].length);
              events.push({ type: match[1], data: JSON.parse(match[2]) });
            }
            const at = events.findIndex((e) => e.type === type);
            if (at >= 0) return events.splice(0, at + 1)[at].data;
            const { value } = await reader.read();
            text += decoder.decode(value);
            return null;
          },
          5_000,
          `a ${type} event`,
        );
      },
    };
  }

  const relay = (on: boolean, since: string) =>
    agent.publish('state', { relay: on ? 'on' : 'off', since, sessionId: null });

  it('sends whole states to a new stream, then only the fields that changed', async () => {
    const first = await stream('?format=changes');
    const snapshot = await first.next('snapshot');
    expect(snapshot.resources.find((s: any) => s.resource === machine)).toMatchObject({
      online: true,
      relay: 'off',
      agentVersion: 'test',
    });

    await relay(true, '2026-11-23T10:00:00.000Z');
    // The stream's first batch after its snapshot: the whole state.
    const whole = await first.next('changes');
    expect(whole.changes).toEqual([
      expect.objectContaining({
        resource: machine,
        bridge: true,
        online: true,
        relay: 'on',
        relaySince: '2026-11-23T10:00:00.000Z',
        agentVersion: 'test',
      }),
    ]);

    const second = await stream('?format=changes');
    await second.next('snapshot');
    await relay(false, '2026-11-23T10:05:00.000Z');
    // The first stream holds the last state sent: only what changed.
    const fields = await first.next('changes');
    expect(fields.changes).toHaveLength(1);
    expect(fields.changes[0]).toMatchObject({
      resource: machine,
      relay: 'off',
      relaySince: '2026-11-23T10:05:00.000Z',
    });
    expect(fields.changes[0]).not.toHaveProperty('agentVersion');
    expect(fields.changes[0]).not.toHaveProperty('bridge');
    // The second one's snapshot may be newer than that state: it gets the whole state once...
    const joined = await second.next('changes');
    expect(joined.changes[0]).toMatchObject({ resource: machine, relay: 'off', agentVersion: 'test' });
    // ...and from then on only what changed, like the first.
    await relay(true, '2026-11-23T10:10:00.000Z');
    for (const s of [first, second]) {
      const next = await s.next('changes');
      expect(next.changes).toHaveLength(1);
      // The hub notes when it last heard from the bridge: that changes too.
      const { lastSeenAt, ...rest } = next.changes[0];
      expect(rest).toEqual({ resource: machine, relay: 'on', relaySince: '2026-11-23T10:10:00.000Z' });
    }
  });

  it('keeps sending a whole status per change by default', async () => {
    const plain = await stream(`?resource=${machine}`);
    await plain.next('snapshot');
    // A stream that follows everything, read until it has the change too: its batch (every
    // 500 ms) is then sent, and the next test's streams start after it.
    const everything = await stream('?format=changes');
    await everything.next('snapshot');
    await relay(false, '2026-11-23T10:15:00.000Z');
    const event = await plain.next('resource');
    expect(event.status).toMatchObject({ resource: machine, relay: 'off', agentVersion: 'test' });
    await everything.next('changes');
  });

  it('sends only the fields a stream asks for, and nothing when only the others change', async () => {
    const every = await stream('?format=changes');
    const some = await stream('?format=changes&field=relay&field=online');
    const full = await stream(`?resource=${machine}&field=relay`);
    const snapshot = await some.next('snapshot');
    expect(snapshot.resources.find((s: any) => s.resource === machine)).toEqual({
      resource: machine,
      relay: expect.any(String),
      online: true,
    });
    for (const s of [every, full]) await s.next('snapshot');
    await relay(true, '2026-11-23T10:20:00.000Z');
    expect((await some.next('changes')).changes).toEqual([{ resource: machine, relay: 'on', online: true }]);
    expect((await full.next('resource')).status).toEqual({ resource: machine, relay: 'on' });
    await every.next('changes');

    // The same state again: only the hub's note of when it last heard from the bridge moves.
    await relay(true, '2026-11-23T10:20:00.000Z');
    const seen = await every.next('changes');
    expect(Object.keys(seen.changes[0]).sort()).toEqual(['lastSeenAt', 'resource']);
    // The streams that did not ask for it get nothing for it: their next events are the next relay change.
    await relay(false, '2026-11-23T10:25:00.000Z');
    expect((await some.next('changes')).changes).toEqual([{ resource: machine, relay: 'off' }]);
    expect((await full.next('resource')).status).toEqual({ resource: machine, relay: 'off' });
  });

  it("shows a member their own session on a stream like every other member's, and others only that it runs", async () => {
    const pkg = (
      await t.call(t.owner.token, { method: 'POST', url: '/api/v1/packages', payload: { name: 'All' } })
    ).json();
    await t.call(t.owner.token, {
      method: 'POST',
      url: `/api/v1/packages/${pkg.id}/permissions`,
      payload: { type: 'everything' },
    });
    const [ada, ben] = [await t.newMemberWithToken('Ada', 'L'), await t.newMemberWithToken('Ben', 'M')];
    await t.call(t.owner.token, {
      method: 'POST',
      url: `/api/v1/members/${ada.id}/packages`,
      payload: { package: pkg.id },
    });
    // Two members' home pages, as the web app opens them, and a third stream of Ada's (another tab).
    const query = '?format=changes&field=relay&field=session';
    const [adaHome, benHome, adaTab] = [
      await stream(query, ada.token),
      await stream(query, ben.token),
      await stream(query, ada.token),
    ];
    for (const s of [adaHome, benHome, adaTab]) await s.next('snapshot');
    // Settle the fresh streams (their first batch is whole states).
    await relay(false, '2026-11-23T13:00:00.000Z');
    for (const s of [adaHome, benHome, adaTab]) await s.next('changes');

    const on = await fetch(`${httpUrl}/api/v1/resources/${machine}/switch-on`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ada.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(on.status).toBe(200);
    const mine = { mine: true, member: { id: ada.id, firstName: 'Ada', lastName: 'L' } };
    for (const s of [adaHome, adaTab]) {
      const { changes } = await s.next('changes');
      expect(changes).toEqual([{ resource: machine, session: expect.objectContaining(mine) }]);
    }
    const { changes: seen } = await benHome.next('changes');
    expect(seen).toEqual([
      { resource: machine, session: expect.objectContaining({ mine: false, member: null }) },
    ]);

    // A change while it runs: the same for all, Ada's streams keep her session as theirs.
    await relay(true, '2026-11-23T13:05:00.000Z');
    for (const s of [adaHome, benHome, adaTab])
      expect((await s.next('changes')).changes).toEqual([{ resource: machine, relay: 'on' }]);

    const off = await fetch(`${httpUrl}/api/v1/resources/${machine}/switch-off`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(off.status).toBe(200);
    for (const s of [adaHome, benHome, adaTab]) {
      const { changes } = await s.next('changes');
      expect(changes).toEqual([expect.objectContaining({ resource: machine, session: null })]);
    }
  });

  it('refuses a field a status does not have', async () => {
    const res = await fetch(`${httpUrl}/api/v1/live?format=changes&field=relay&field=password`, {
      headers: { authorization: `Bearer ${t.owner.token}` },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/field/);
  });

  it('refuses unknown and malformed query keys, naming them, and opens no stream', async () => {
    for (const query of ['resource[]=1', '__proto__=x', 'colour=red']) {
      const res = await fetch(`${httpUrl}/api/v1/live?${query}`, {
        headers: { authorization: `Bearer ${t.owner.token}` },
      });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toMatch(/json/);
      expect((await res.json()).message, query).toContain(query.split('=')[0]);
    }
  });

  it('keeps sending changes while a switch-on waits for a bridge that does not answer', async () => {
    const watching = await stream(`?format=changes&resource=${machine}`);
    await watching.next('snapshot');
    // The switch-on stays in flight until its deadline (5 s): changes wait for a moment without
    // requests in flight only briefly, then go out anyway.
    agent.answering = false;
    const sent = agent.commands.length;
    let answered = false;
    const switchOn = fetch(`${httpUrl}/api/v1/resources/${machine}/switch-on`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    }).then((res) => {
      answered = true;
      return res;
    });
    try {
      await eventually(async () => agent.commands.length > sent, 5_000, 'the switch-on command');
      await relay(true, '2026-11-23T11:00:00.000Z');
      const change = await watching.next('changes');
      expect(change.changes[0]).toMatchObject({ resource: machine, relay: 'on' });
      expect(answered).toBe(false);
    } finally {
      agent.answering = true;
      await switchOn;
    }
    expect((await switchOn).status).toBe(504);
  }, 15_000);

  /** Reads a stream in the background: `batches()` counts its `changes` events so far. */
  async function tally(token: string, query: string) {
    const res = await fetch(`${httpUrl}/api/v1/live${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += decoder.decode(value);
      }
    })();
    await eventually(async () => text.includes('event: snapshot'), 5_000, 'the snapshot');
    return {
      batches: () => text.split('event: changes\n').length - 1,
      text: () => text,
    };
  }

  it("gathers a member's follow-everything stream per second, an admin's per half second", async () => {
    const { token: memberToken } = await t.newMemberWithToken('Home', 'Page');
    const admin = await tally(t.owner.token, '?format=changes');
    const home = await tally(memberToken, '?format=changes');
    // A busy relay: a change every 100 ms for 4 s.
    const started = Date.now();
    // The last state sent (a loaded machine gets through fewer than 40 in the 4 s).
    let last = '';
    for (let i = 0; Date.now() - started < 4_000; i++) {
      last = new Date(Date.parse('2026-11-23T12:00:00.000Z') + i * 1000).toISOString();
      await relay(i % 2 === 0, last);
      await new Promise((r) => setTimeout(r, 100));
    }
    await eventually(
      async () => admin.text().includes(last) && home.text().includes(last),
      5_000,
      'the last change on both streams',
    );
    // About 8 batches for the admin's dashboard, 4 for the member's home page: the home page's
    // stream is written to half as often, and still ends on the last state.
    expect(admin.batches()).toBeGreaterThanOrEqual(6);
    expect(home.batches()).toBeGreaterThanOrEqual(2);
    expect(home.batches()).toBeLessThanOrEqual(5);
  }, 20_000);
});
