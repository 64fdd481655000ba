import { z } from 'zod';
import { ControlType, DenyReason, KeyType, ResourceLogType } from '../enums.js';
import { Id, Timestamp } from './common.js';

/**
 * `POST /resources/{id}/bridge/pairing-codes` (admins): a short-lived, one-use code that a new
 * Pi redeems with `makerspace-agent pair <hub URL> <code>` to receive the bridge API key, so
 * nobody copies keys by hand.
 */
export const PairingCode = z.object({
  resource: Id,
  code: z.string().describe('Shown once; valid until expiresAt and for one redemption'),
  expiresAt: Timestamp,
  command: z.string().describe('The one line to run on the Pi'),
});
export type PairingCode = z.infer<typeof PairingCode>;

export const PairingRedeem = z.object({
  code: z
    .string()
    .trim()
    .min(8)
    .max(64)
    .regex(/^[A-Za-z0-9-]+$/, 'letters, digits and dashes only'),
});

/** What redeeming answers (once): the bridge API key and what the agent's config needs. */
export const PairingRedeemed = z.object({
  resource: Id,
  name: z.string(),
  controlType: ControlType,
  pulseSeconds: z.number(),
  apiKey: z.string().describe('The bridge API key; any earlier key stops working at once'),
  releaseKey: z
    .string()
    .optional()
    .describe(
      "The hub's agent-release public key (Ed25519, SPKI PEM): the agent installs only releases signed with it",
    ),
});
export type PairingRedeemed = z.infer<typeof PairingRedeemed>;

/** A resource log as the admins' live feed shows it (`log` events of GET /live). */
export const LiveLog = z.object({
  id: Id,
  resource: Id,
  type: ResourceLogType,
  reason: DenyReason.nullable(),
  member: z.object({ id: Id, firstName: z.string(), lastName: z.string() }).nullable(),
  createdAt: Timestamp,
  stoppedAt: Timestamp.nullable(),
  offline: z.boolean().describe('Decided by the bridge while the hub was away, and reported late'),
  card: z.object({ type: KeyType, token: z.string() }).nullable().describe('The card tapped, if any'),
});
export type LiveLog = z.infer<typeof LiveLog>;

/** `GET /unknown-cards` (admins): cards that were refused as unknown, newest first. */
export const UnknownCard = z.object({
  type: KeyType,
  token: z.string(),
  lastSeenAt: Timestamp,
  resource: Id.describe('Where it was last tapped'),
  taps: z.number().int(),
});
export type UnknownCard = z.infer<typeof UnknownCard>;

export const UnknownCardsQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(14).describe('How far back to look'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
