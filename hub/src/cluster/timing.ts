/**
 * How fast the hubs of a cluster notice a dead one (docs/SCALING.md, "The offline bound"). Each
 * hub writes its liveness key every `heartbeatMs`, expiring after `nodeTtlMs`; every `sweepMs`
 * each hub looks for keys that ran out and marks those hubs' bridges offline.
 */
export interface ClusterTiming {
  /** HUB_NODE_HEARTBEAT_MS: how often a hub writes its liveness key. */
  heartbeatMs: number;
  /** HUB_NODE_TTL_MS: a hub not heard from for this long is dead (at least 3 heartbeats). */
  nodeTtlMs: number;
  /** HUB_NODE_SWEEP_MS: how often a hub looks for dead hubs. */
  sweepMs: number;
}

export const defaultClusterTiming: ClusterTiming = { heartbeatMs: 1_000, nodeTtlMs: 3_000, sweepMs: 1_000 };

/** The TTL must cover this many heartbeats: one or two late or lost beats are not a death. */
export const minHeartbeatsPerTtl = 3;

/**
 * At most this long after a hub dies its bridges read offline on the other hubs: its last beat
 * was at or before the crash, so its key runs out within the TTL, and the next sweep of a
 * surviving hub (within `sweepMs`) finds it. (Add the sweep's own Redis and database round trips:
 * milliseconds.)
 */
export function offlineBoundMs(t: ClusterTiming): number {
  return t.nodeTtlMs + t.sweepMs;
}

/** The shortest MQTT keepalive (s) for which the bound is within 1.5 keepalives (issue 19). */
export function minKeepaliveSeconds(t: ClusterTiming): number {
  return Math.ceil(offlineBoundMs(t) / 1_500);
}
