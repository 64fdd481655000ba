import { expect, it } from 'vitest';
import type { HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { describeCluster, useCluster } from './support.js';

/** Redis (this test's own) goes away and comes back: the hubs say so, then recover by themselves. */
describeCluster('cluster mode: Redis restarted under the hubs', () => {
  // A door agent on each hub.
  const cluster = useCluster({ hubs: 2, doors: [{ hubs: [0] }, { hubs: [1] }] });
  const { doors } = cluster;

  const ready = async (hub: HubProcess) => (await fetch(`http://127.0.0.1:${hub.httpPort}/ready`)).status;
  const switchOn = (hub: HubProcess, d: (typeof doors)[number]) =>
    hub.api('POST', `/resources/${d.id}/switch-on`, { code: d.code });

  it('answers 503 without Redis, never 200 without the relay, and recovers without a restart', async () => {
    const [a, b] = cluster.hubs;
    expect((await switchOn(b, doors[0])).status).toBe(200);
    await eventually(() => doors[0].agent.relay() === 'off', 5_000, 'door closed');

    await cluster.redis.stop();
    await eventually(async () => (await ready(a)) === 503 && (await ready(b)) === 503, 5_000, '/ready 503');
    // A door held by the other hub cannot be reached: a clear failure, and the relay stays off.
    const res = await switchOn(b, doors[0]);
    expect([503, 504]).toContain(res.status);
    expect(doors[0].agent.relay()).toBe('off');

    // Some seconds without Redis: every connection to it fails meanwhile, and no hub may die of it.
    await new Promise((r) => setTimeout(r, 3_000));
    expect([a, b].map((h) => h.proc.child.exitCode)).toEqual([null, null]);
    await cluster.redis.restart();
    await eventually(
      async () => (await ready(a)) === 200 && (await ready(b)) === 200,
      15_000,
      '/ready 200 again',
    );
    for (const [hub, d] of [
      [b, doors[0]],
      [a, doors[1]],
    ] as const) {
      await eventually(
        async () => {
          if (d.agent.relay() === 'on') return false;
          return (await switchOn(hub, d)).status === 200;
        },
        15_000,
        'switch-on across hubs again',
      );
      expect(d.agent.relay()).toBe('on');
    }
    // The bridges read online again on both hubs.
    for (const d of doors)
      await eventually(
        async () => (await a.api('GET', `/resources/${d.id}/bridge`)).body.offline === false,
        5_000,
      );
  }, 60_000);
});
