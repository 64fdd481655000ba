import { parentPort, workerData } from 'node:worker_threads';
import { Redis } from 'ioredis';

/** What the main thread hands the heartbeat thread (cluster.ts, startHeartbeat). */
export interface HeartbeatData {
  redisUrl: string;
  /** The hub's liveness key (`makerspace:node:{id}`). */
  key: string;
  heartbeatMs: number;
  nodeTtlMs: number;
  /** The main thread silent for longer than this: the hub is stuck, and no longer vouched for. */
  mainStallMs: number;
  /** One BigInt64: when the main thread's event loop last ran its tick (ms since the epoch). */
  mainTick: SharedArrayBuffer;
}

/**
 * The heartbeat thread of a hub in cluster mode: writes the hub's liveness key every
 * `heartbeatMs` on a Redis connection of its own, on an event loop that the hub's requests, sweeps
 * and garbage collection do not hold up. Redis errors are left to the main thread to report.
 */
if (parentPort) {
  const data = workerData as HeartbeatData;
  const tick = new BigInt64Array(data.mainTick);
  const redis = new Redis(data.redisUrl, {
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    enableOfflineQueue: false,
  });
  redis.on('error', () => {});
  const beat = () => {
    if (Date.now() - Number(Atomics.load(tick, 0)) > data.mainStallMs) return;
    redis.set(data.key, '1', 'PX', data.nodeTtlMs).catch(() => {});
  };
  redis.on('ready', beat);
  setInterval(beat, data.heartbeatMs);
}
