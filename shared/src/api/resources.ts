import { z } from 'zod';
import { ControlType, DenyReason, ResourceLogType, StopType } from '../enums.js';
import { Id, LockVersion, Metadata, Money, Stamps, Timestamp } from './common.js';

/** How a door's relay is held: per tap only, during opening hours, or from the first entry on. */
export const unlockModes = ['normal', 'openingHours', 'firstIn'] as const;
export const UnlockMode = z.enum(unlockModes);
export type UnlockMode = z.infer<typeof UnlockMode>;

const optText = (max: number) => z.string().max(max).nullable().optional();
const seconds = z
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 86400);

/** Resource fields a client may write (api-fields.md, resource). */
export const resourceWritable = {
  space: Id,
  name: z.string().min(1).max(200),
  type: Id.nullable().optional(),
  controlType: ControlType.optional(),
  state: z.enum(['active', 'locked']).optional(),
  requiresTraining: z.boolean().optional(),
  canBeBooked: z.boolean().optional(),
  mustBeBooked: z.boolean().optional(),
  exclusiveUsage: z.boolean().optional(),
  visibleForMembers: z.boolean().optional(),
  description: optText(20_000),
  notes: optText(20_000),
  maintenanceNotes: optText(20_000),
  displayTitle: optText(200),
  safetyMessage: optText(2000),
  maxOfflineUsage: seconds.nullable().optional(),
  maxDuration: z
    .number()
    .int()
    .min(60)
    .max(7 * 86400)
    .nullable()
    .optional()
    .describe('Seconds a session may run at most (60 s to 7 days); null: no limit of its own'),
  lockReason: z
    .string()
    .max(500)
    .nullable()
    .optional()
    .describe('Why the resource is locked (state locked), in words members read on its page'),
  entrance: z
    .boolean()
    .optional()
    .describe('A door where taps check members in and out of the space (the next tap checks out)'),
  unlockMode: UnlockMode.optional().describe(
    'Doors: normal (pulses open per tap); openingHours (held unlocked during the space’s opening hours); firstIn (held unlocked from the first allowed entry of the day until closing time)',
  ),
  idleTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 86400)
    .nullable()
    .optional()
    .describe(
      'Machines with a busy input on their bridge: a session idle this long is warned, then switched off (stopType automatic) after idleWarningSeconds unless the machine gets busy; a busy machine is never cut by it. null: no idle switch-off',
    ),
  idleWarningSeconds: z
    .number()
    .int()
    .min(0)
    .max(3600)
    .nullable()
    .optional()
    .describe('Seconds of warning (buzzer, the member’s page) before the idle switch-off; null: 60'),
  busyGraceSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86400)
    .nullable()
    .optional()
    .describe(
      'Machines with a busy input: how long a busy machine runs past the session’s maximum duration (it is switched off as soon as it is idle); null: none',
    ),
  deadManIntervalBusy: seconds.nullable().optional(),
  deadManIntervalIdle: seconds.nullable().optional(),
  idlePowerThreshold: Money.nullable().optional(),
  pricePerTimeBusy: Money.optional(),
  pricePerTimeBusySeconds: z.number().int().min(1).optional(),
  pricePerTimeIdle: Money.optional(),
  pricePerTimeIdleSeconds: z.number().int().min(1).optional(),
  pricePerUsage: Money.optional(),
  pricingMinDurationSeconds: seconds.optional(),
  pricePerBooking: Money.optional(),
  pricePerBookingSeconds: z.number().int().min(1).optional(),
  metadata: Metadata(4096).nullable().optional(),
  pulseSeconds: z
    .number()
    .int()
    .min(1)
    .max(600)
    .optional()
    .describe('How long a door stays open on switch-on'),
  codeMode: z
    .enum(['static', 'totp'])
    .optional()
    .describe('static: a printed code (QR sticker); totp: an RFC 6238 code the agent shows'),
  switchOnCode: z
    .string()
    .min(6, 'at least 6 characters: shorter codes can be guessed')
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only')
    .nullable()
    .optional()
    .describe(
      'Admins only. A new code (with codeMode totp: a base32 secret of 16+ characters); null makes the hub generate a new random one',
    ),
};

export const ResourceCreate = z.strictObject(resourceWritable);
export const ResourceUpdate = z.object({
  ...z.object(resourceWritable).partial().shape,
  lockVersion: LockVersion,
});

export const ResourceRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  name: z.string(),
  type: Id.nullable(),
  controlType: z.string(),
  state: z.string(),
  requiresTraining: z.boolean(),
  canBeBooked: z.boolean(),
  mustBeBooked: z.boolean(),
  exclusiveUsage: z.boolean(),
  visibleForMembers: z.boolean(),
  description: z.string().nullable(),
  notes: z.string().nullable(),
  maintenanceNotes: z.string().nullable(),
  displayTitle: z.string().nullable(),
  safetyMessage: z.string().nullable(),
  maxOfflineUsage: z.number().nullable(),
  maxDuration: z.number().nullable(),
  lockReason: z.string().nullable(),
  entrance: z.boolean(),
  unlockMode: UnlockMode,
  idleTimeoutSeconds: z.number().nullable(),
  idleWarningSeconds: z.number().nullable(),
  busyGraceSeconds: z.number().nullable(),
  deadManIntervalBusy: z.number().nullable(),
  deadManIntervalIdle: z.number().nullable(),
  idlePowerThreshold: z.string().nullable(),
  pricePerTimeBusy: z.string(),
  pricePerTimeBusySeconds: z.number(),
  pricePerTimeIdle: z.string(),
  pricePerTimeIdleSeconds: z.number(),
  pricePerUsage: z.string(),
  pricingMinDurationSeconds: z.number(),
  pricePerBooking: z.string(),
  pricePerBookingSeconds: z.number(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  pulseSeconds: z.number(),
  codeMode: z.enum(['static', 'totp']),
  switchOnCode: z
    .string()
    .optional()
    .describe('Shown to admins only. With codeMode totp: the base32 secret (RFC 6238)'),
  totpUri: z
    .string()
    .optional()
    .describe('Admins only, codeMode totp: otpauth:// provisioning URI for authenticator apps'),
  lastUsed: z
    .object({
      id: Id,
      at: Timestamp,
      member: Id.nullable(),
      stopType: StopType.nullable().describe('How that use ended; null while it runs'),
    })
    .nullable(),
  ...Stamps,
  _embedded: z.record(z.string(), z.unknown()).optional(),
});

export const ResourceTypeCreate = z.strictObject({ name: z.string().min(1).max(200) });
export const ResourceTypeUpdate = z.object({
  name: z.string().min(1).max(200).optional(),
  lockVersion: LockVersion,
});
export const ResourceTypeRecord = z.object({ id: Id, account: Id, name: z.string(), ...Stamps });
export type ResourceTypeRecord = z.infer<typeof ResourceTypeRecord>;

export const BridgeUpdate = z.object({
  serialNumber: z.string().max(100).nullable().optional(),
  heartbeatInterval: z
    .number()
    .int()
    .min(5)
    .max(3600)
    .nullable()
    .optional()
    .describe('Seconds between heartbeats; null: the bridge is never marked offline for silence'),
  rotateApiKey: z
    .boolean()
    .optional()
    .describe('Replace the API key; the connected agent is disconnected at once'),
});
export const BridgeRecord = z.object({
  resource: Id,
  serialNumber: z.string().nullable(),
  /** null: offline detection is off for this bridge. */
  heartbeatInterval: z.number().nullable(),
  inUse: z.boolean(),
  offline: z.boolean(),
  hasAPIKey: z.boolean(),
  agentVersion: z.string().nullable(),
  lastSeenAt: Timestamp.nullable(),
  configVersion: z.number(),
  duplicateDeviceAt: Timestamp.nullable().describe(
    'When two devices with this bridge key last took the MQTT connection from each other (a copied key); null when not seen since the key was last rotated',
  ),
  duplicateDeviceAddresses: z
    .array(z.string())
    .describe('The addresses of those two devices, the newer connection first; empty when none'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const BridgeApiKey = z.object({ apiKey: z.string() });

/** The code from the QR sticker; admins and owners may leave it out (they switch without one). */
export const SwitchOnBody = z.object({ code: z.string().min(1).max(64).optional() });
export const SwitchOnResult = z.object({
  state: z.enum(['on', 'off']),
  since: Timestamp,
  resourceLog: Id,
  sessionId: z.string(),
  maxDuration: z.number().nullable(),
});

export const ResourceLogCreate = z.strictObject({
  resource: Id,
  type: ResourceLogType.optional().describe('allowed when absent (usage no bridge reported)'),
  member: Id.nullable().optional(),
  createdAt: Timestamp.optional(),
  stoppedAt: Timestamp.nullable().optional(),
  stopType: StopType.nullable().optional(),
  reason: DenyReason.nullable().optional(),
  notes: z.string().max(2000).nullable().optional(),
  metadata: Metadata(1024).nullable().optional(),
  idleDurationSeconds: z.number().int().min(0).nullable().optional(),
});
/** An admin's correction of a log; `originalMember` keeps the member it was first recorded for. */
export const ResourceLogUpdate = z.object({
  ...ResourceLogCreate.omit({ resource: true }).shape,
  type: ResourceLogType.optional(),
  lockVersion: LockVersion,
});
export const ResourceLogRecord = z.object({
  id: Id,
  account: Id,
  resource: Id,
  type: ResourceLogType,
  member: z.union([Id, z.object({ id: Id })]).nullable(),
  originalMember: Id.nullable(),
  createdAt: Timestamp,
  stoppedAt: Timestamp.nullable(),
  stopType: StopType.nullable(),
  idleDurationSeconds: z.number().nullable(),
  reason: DenyReason.nullable(),
  notes: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  extraChargeDescription: z.string().nullable(),
  extraChargePrice: z.string().nullable(),
  extraChargeTaxPercent: z.string().nullable(),
  offline: z.boolean(),
  lockVersion: z.number(),
  updatedAt: Timestamp,
  updatedBy: Id.nullable(),
});
export type ResourceRecord = z.infer<typeof ResourceRecord>;
export type SwitchOnResult = z.infer<typeof SwitchOnResult>;
export type ResourceLogRecord = z.infer<typeof ResourceLogRecord>;
