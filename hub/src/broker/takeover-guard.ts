import type { Clock } from '../context.js';

export interface TakeoverSettings {
  /** Takeovers of a live connection within `windowMs` that still count as reconnects. */
  threshold: number;
  windowMs: number;
  /** First refusal period once the threshold is passed; doubles with each further takeover. */
  firstBackoffMs: number;
  maxBackoffMs: number;
  /** An episode (and its back-off) ends after this long without a takeover. */
  quietMs: number;
}

export const defaultTakeoverSettings: TakeoverSettings = {
  threshold: 3,
  windowMs: 60_000,
  firstBackoffMs: 30_000,
  maxBackoffMs: 10 * 60_000,
  quietMs: 20 * 60_000,
};

export type TakeoverDecision =
  /** A reconnect: let in, the old connection is closed (MQTT-3.1.4-2). */
  | { allow: true; duplicate: false }
  /** Let in, but two devices use the key; takeovers are refused for `backoffMs` from now. */
  | { allow: true; duplicate: true; firstOfEpisode: boolean; takeovers: number; backoffMs: number }
  /** Refused: the live connection stays. */
  | { allow: false; retryAfterSeconds: number };

interface Episode {
  /** Takeovers within the window. */
  times: number[];
  lastAt: number;
  backoffMs: number;
  refuseUntil: number;
}

/**
 * Tells a bridge that reconnects over its own half-open connection from a second device with
 * the same key (a cloned SD card): the two take the connection from each other again and again.
 * A takeover of a connection that is dead (silent beyond its keepalive) is always a reconnect.
 * Past `threshold` takeovers of live connections within `windowMs`, each further takeover is
 * let in only after a back-off that doubles each time (30 s, 1 min, ... 10 min), so the two
 * devices swap a few times an hour instead of several times a second.
 */
export class TakeoverGuard {
  private readonly episodes = new Map<number, Episode>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: TakeoverSettings = defaultTakeoverSettings,
  ) {}

  /** A connection with the bridge's key finds another one holding the bridge's session. */
  decide(resourceId: number, holderAlive: boolean): TakeoverDecision {
    const now = this.clock.now().getTime();
    const s = this.settings;
    let episode = this.episodes.get(resourceId);
    if (!episode || now - episode.lastAt > s.quietMs) {
      episode = { times: [], lastAt: now, backoffMs: 0, refuseUntil: 0 };
    }
    if (!holderAlive) return { allow: true, duplicate: false };
    if (now < episode.refuseUntil) {
      return { allow: false, retryAfterSeconds: Math.ceil((episode.refuseUntil - now) / 1000) };
    }
    episode.times = [...episode.times.filter((t) => t > now - s.windowMs), now];
    episode.lastAt = now;
    this.episodes.delete(resourceId);
    this.episodes.set(resourceId, episode);
    if (this.episodes.size > 10_000) this.episodes.delete(this.episodes.keys().next().value as number);
    if (episode.backoffMs === 0 && episode.times.length <= s.threshold)
      return { allow: true, duplicate: false };
    const firstOfEpisode = episode.backoffMs === 0;
    episode.backoffMs = firstOfEpisode ? s.firstBackoffMs : Math.min(2 * episode.backoffMs, s.maxBackoffMs);
    episode.refuseUntil = now + episode.backoffMs;
    return {
      allow: true,
      duplicate: true,
      firstOfEpisode,
      takeovers: episode.times.length,
      backoffMs: episode.backoffMs,
    };
  }

  /** The key changed (rotated, bridge deleted): whatever happened before is over. */
  forget(resourceId: number): void {
    this.episodes.delete(resourceId);
  }
}
