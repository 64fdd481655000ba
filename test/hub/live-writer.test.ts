import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** The pids of this process's live-channel writers (the hub under test runs in this process). */
function writers(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('live-writer-process'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The live channel's writer process (docs/DECISIONS.md): the streams' sockets are written by a
 * process of the hub's own, started with the first stream. What a browser sees must not change:
 * the snapshot, each change, and the end of the stream when the writer or the hub goes (after
 * which a browser's EventSource reconnects and is served again).
 */
describe('live channel: the writer process', () => {
  let t: TestHub;
  let httpUrl: string;
  let agent: FakeAgent;
  let machine: number;

  const api = (method: string, url: string, payload?: unknown) =>
    t.call(t.owner.token, { method: method as any, url: `/api/v1${url}`, payload: payload as any });

  beforeAll(async () => {
    t = await startTestHub('sqlite');
    const urls = await t.listen();
    httpUrl = urls.httpUrl;
    machine = (
      await api('POST', '/resources', { space: t.owner.spaceId, name: 'Lathe', controlType: 'machine' })
    ).json().id;
    await api('PUT', `/resources/${machine}/bridge`, {});
    const key = (await api('GET', `/resources/${machine}/bridge/api-key`)).json().apiKey;
    agent = await connectFakeAgent(urls.mqttUrl, machine, key);
    await eventually(
      async () => !(await api('GET', `/resources/${machine}/bridge`)).json().offline,
      5_000,
      'the bridge online',
    );
  });

  afterAll(async () => {
    await agent.close();
    await t.close();
  });

  /** A stream read as text (the machine page's, as the owner, unless told); `ended` settles when the hub's side ends it. */
  async function stream(query = `?resource=${machine}`, bearer = t.owner.token) {
    const res = await fetch(`${httpUrl}/api/v1/live${query}`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const s = { text: '', done: false, ended: null as unknown as Promise<void> };
    s.ended = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        s.text += decoder.decode(value);
      }
      s.done = true;
    })();
    return s;
  }

  const relay = (on: boolean, since: string) =>
    agent.publish('state', { relay: on ? 'on' : 'off', since, sessionId: null });

  it("carries a stream's snapshot and changes, and its end when the writer stops; a new stream is served again", async () => {
    const first = await stream();
    await eventually(async () => first.text.includes('event: snapshot'), 5_000, 'the snapshot');
    const [pid] = writers();
    expect(pid, 'a writer process beside the hub').toBeGreaterThan(0);

    await relay(true, '2026-11-24T10:00:00.000Z');
    await eventually(async () => first.text.includes('2026-11-24T10:00:00.000Z'), 5_000, 'the change');

    // The writer stops (killed): its streams end, as they would if the hub went.
    process.kill(pid, 'SIGKILL');
    await first.ended;
    await eventually(async () => !alive(pid), 5_000, 'the writer gone');

    // The browser reconnects: a new writer serves it, snapshot and changes alike.
    const second = await stream();
    await eventually(async () => second.text.includes('event: snapshot'), 5_000, 'the snapshot again');
    expect(writers().filter((p) => p !== pid)).toHaveLength(1);
    await relay(false, '2026-11-24T10:05:00.000Z');
    await eventually(async () => second.text.includes('2026-11-24T10:05:00.000Z'), 5_000, 'the next change');
  });

  it('at the keep-alive: ends the streams of a deleted key, and keeps the others alive', async () => {
    const { keyId, token } = await t.newMemberWithToken('Lost', 'Key');
    const lost = await stream('?format=changes', token);
    const kept = await stream('?format=changes');
    await eventually(
      async () => lost.text.includes('event: snapshot') && kept.text.includes('event: snapshot'),
    );
    expect((await api('DELETE', `/api-keys/${keyId}`)).statusCode).toBe(204);
    // The keep-alive (every 25 s) checks each stream's credential again; run it now.
    await (t.app as unknown as { live: { ping(): Promise<void> } }).live.ping();
    await lost.ended;
    expect(lost.text).toContain('event: signedOut');
    await eventually(async () => kept.text.includes(': keep-alive'), 5_000, 'the keep-alive');
    expect(kept.done).toBe(false);
  });

  it('ends every stream when the hub stops, and the writer with it', async () => {
    const s = await stream();
    await eventually(async () => s.text.includes('event: snapshot'), 5_000, 'the snapshot');
    const pids = writers();
    expect(pids).toHaveLength(1);
    await agent.close();
    await t.close();
    await s.ended;
    await eventually(async () => !alive(pids[0]), 5_000, 'the writer gone');
    // afterAll closes them again: both are idempotent.
  });
});
