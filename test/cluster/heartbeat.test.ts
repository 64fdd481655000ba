import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
// The built hub: its heartbeat runs in a worker thread, which exists only compiled.
import { Cluster } from '../../hub/dist/cluster/cluster.js';
import { describeCluster, type RedisServer, startRedis } from './support.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;

/**
 * A hub whose event loop stalls for longer than its node TTL (a long synchronous task, a GC
 * pause, a loaded machine) is alive: its heartbeat thread keeps its key, and the other hubs do
 * not take its bridges for a dead hub's.
 */
describeCluster('cluster heartbeat', () => {
  let redis: RedisServer;
  let a: Cluster;
  let b: Cluster;
  let probe: Redis;
  const orphans: number[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    probe = new Redis(redis.url);
    a = new Cluster({ redisUrl: redis.url, nodeId: 'hub-a' }, quiet);
    b = new Cluster({ redisUrl: redis.url, nodeId: 'hub-b' }, quiet);
    b.onOrphan = async (r) => {
      orphans.push(r);
    };
    for (const c of [a, b]) {
      await c.open();
      c.start();
    }
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    probe?.disconnect();
    await redis?.stop();
  });

  it('keeps a hub alive through a main-thread stall longer than its TTL', async () => {
    expect(a.timing).toEqual({ heartbeatMs: 1_000, nodeTtlMs: 3_000, sweepMs: 1_000 });
    await a.claim(7);
    await new Promise((r) => setTimeout(r, 1_500)); // the worker is up and beating
    // Blocks this process's main thread (both hubs' timers) for twice the TTL.
    await probe.ping();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2 * a.timing.nodeTtlMs);
    // Asked before any timer of this thread runs again: only the heartbeat thread kept the key.
    expect(await probe.exists('makerspace:node:hub-a')).toBe(1);
    await b.sweep();
    await new Promise((r) => setTimeout(r, 2 * b.timing.sweepMs + 200));
    expect(orphans).toEqual([]);
    expect(await b.holders()).toEqual(new Set([7]));
  }, 20_000);

  it('lets the others see a closed hub gone at once', async () => {
    await a.close();
    await b.sweep();
    expect(orphans).toEqual([7]);
  });
});
