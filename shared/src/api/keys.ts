import { z } from 'zod';
import { KeyType } from '../enums.js';
import { Id, Timestamp } from './common.js';

/**
 * A card UID as hex; lower-case input is accepted and stored upper-case (api-fields.md, member
 * key: "token (upper-case hex UID)").
 */
export const KeyToken = z
  .string()
  .trim()
  .regex(/^[0-9A-Fa-f]{1,64}$/, 'must be the card UID as hex digits (1-64)')
  .transform((s) => s.toUpperCase());

export const KeyState = z.enum(['active', 'inactive']);

/** PUT /members/{id}/key: creates or replaces the member's key card. */
export const MemberKeyPut = z.object({
  type: KeyType,
  token: KeyToken,
  state: KeyState.default('active'),
});
export type MemberKeyPut = z.infer<typeof MemberKeyPut>;

export const MemberKeyRecord = z.object({
  member: Id,
  type: KeyType,
  token: z.string(),
  state: KeyState,
  lockVersion: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  updatedBy: Id.nullable(),
});
export type MemberKeyRecord = z.infer<typeof MemberKeyRecord>;

/** POST /key-assignments: `{member}` (Fabman) and optionally the resource whose reader to listen at. */
export const KeyAssignmentCreate = z.strictObject({
  member: Id,
  resource: Id.nullable().optional(),
});
/** PUT /key-assignments/{id} (Fabman's second step): names the resource; restarts the window. */
export const KeyAssignmentUpdate = z.object({ resource: Id });

export const KeyAssignmentRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  resource: Id.nullable(),
  /** pending: waiting for a card; assigned: done; expired: the window passed without a card. */
  state: z.enum(['pending', 'assigned', 'expired']),
  expiresAt: Timestamp,
  /** The card that was assigned, once assigned. */
  key: z.object({ type: KeyType, token: z.string() }).nullable(),
  assignedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type KeyAssignmentRecord = z.infer<typeof KeyAssignmentRecord>;
