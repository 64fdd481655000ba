import { z } from 'zod';
import { ControlType, denyReasons } from '../enums.js';
import type { LiveLog } from './admin.js';
import { Id, Timestamp } from './common.js';

/**
 * What a member sees of a door or machine on its page (`/r/{id}`) and in the live channel: is its
 * bridge online, is the relay on, who uses it since when. `session.member` is shown to admins
 * and to the member who runs the session; others see only that it is in use.
 */
export const ResourceStatus = z.object({
  resource: Id,
  bridge: z.boolean().describe('The resource has a bridge'),
  online: z.boolean().describe('Its bridge is connected'),
  relay: z.enum(['on', 'off']).nullable().describe('The relay as the bridge last reported it'),
  relaySince: Timestamp.nullable(),
  lastSeenAt: Timestamp.nullable().describe('The last message from the bridge'),
  agentVersion: z.string().nullable(),
  duplicateDeviceAt: Timestamp.nullable().describe(
    "Admins only: when two devices with this bridge's key last took the connection from each other (the bridge record's field); null otherwise",
  ),
  duplicateDeviceAddresses: z.array(z.string()).describe('Admins only: the addresses of those two devices'),
  session: z
    .object({
      id: Id.describe('The resource log of the running session'),
      since: Timestamp,
      mine: z.boolean(),
      member: z.object({ id: Id, firstName: z.string(), lastName: z.string() }).nullable(),
    })
    .nullable()
    .describe('The running machine session, if any'),
  inputs: z
    .array(
      z.object({
        name: z.string(),
        kind: z.enum(['busy', 'interlock', 'doorContact', 'exitButton']),
        label: z.string(),
        active: z
          .boolean()
          .nullable()
          .describe(
            'busy: working; interlock: closed; doorContact: open; exitButton: pressed; null: unknown',
          ),
        since: Timestamp,
        heldOpen: z.boolean().describe('doorContact: open for longer than the bridge allows'),
      }),
    )
    .describe("The bridge's inputs as its agent last reported them (none while it is offline)"),
  idleWarning: z
    .object({ cutAt: Timestamp })
    .nullable()
    .describe('The machine is idle: its session ends at cutAt unless the machine gets busy'),
});
export type ResourceStatus = z.infer<typeof ResourceStatus>;

/**
 * The fields of a status a live channel may be asked for (`field=...`): a page that shows a
 * member's doors and machines asks for their state, not the bridge's diagnostics, and is sent
 * nothing when only those change. `resource` is always sent.
 */
export const ResourceStatusField = ResourceStatus.keyof().exclude(['resource']);
export type ResourceStatusField = z.infer<typeof ResourceStatusField>;

/**
 * Why switch-on would be refused: the policy's reasons plus the bridge's state. `noRemoteSwitch`:
 * the bridge is online but only polls the hub over HTTP (a DIY bridge on the HTTP bridge API), so
 * no command reaches it: it is used at its reader with a key card.
 */
export const AccessCheckReason = z.enum([...denyReasons, 'bridgeOffline', 'noBridge', 'noRemoteSwitch']);
export type AccessCheckReason = z.infer<typeof AccessCheckReason>;

export const AccessCheckQuery = z.object({
  code: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      'The code from the QR sticker: an old one answers staleCode. A current or unknown code is not revealed',
    ),
});

/**
 * `GET /resources/{id}/access-check`: what `POST /resources/{id}/switch-on` would answer for the
 * caller now, from the same policy code, without switching anything or writing a log.
 */
export const AccessCheck = z.object({
  resource: z.object({
    id: Id,
    name: z.string(),
    controlType: ControlType,
    type: z.object({ id: Id, name: z.string() }).nullable(),
    displayTitle: z.string().nullable(),
    safetyMessage: z.string().nullable(),
    lockReason: z
      .string()
      .nullable()
      .describe('While the resource is locked: why, as its admins wrote it; null otherwise'),
    space: Id,
  }),
  allowed: z.boolean(),
  reason: AccessCheckReason.nullable(),
  message: z.string().describe('The verdict in words (English)'),
  until: Timestamp.nullable().describe('When the reason ends, if known: the space opens, a booking ends'),
  retryAfter: z.number().int().nullable().describe('Seconds until a lock-out after wrong codes lifts'),
  maxDuration: z.number().int().nullable().describe('Seconds a session may run if switched on now'),
  trainingCourses: z
    .array(z.object({ id: Id, title: z.string() }))
    .describe('noPermission: the courses that would allow the resource'),
  trainingExpired: z
    .string()
    .nullable()
    .optional()
    .describe(
      'noPermission: the last day of the member’s training that has ended (YYYY-MM-DD), if they had one',
    ),
  timezone: z.string().describe("The space's time zone, for showing times"),
  status: ResourceStatus,
});
export type AccessCheck = z.infer<typeof AccessCheck>;

export const StickerQuery = z.object({
  format: z.enum(['svg', 'png']).default('svg'),
  lang: z
    .enum(['en', 'de'])
    .optional()
    .describe(
      'Language of the sticker’s words; without it the first of Accept-Language the hub has, else English.',
    ),
});

/**
 * A change of a resource's state on a `format=changes` channel: the resource and the fields that
 * changed since the last state sent for it (all of them when none was: then it is a whole status).
 */
export type ResourceChange = Partial<ResourceStatus> & { resource: number };

/** Messages of the live channel (`GET /api/v1/live`, Server-Sent Events); the event name is `type`. */
export type LiveMessage =
  | { type: 'snapshot'; resources: ResourceStatus[] }
  | { type: 'resource'; status: ResourceStatus }
  /** `?format=changes`: a batch's changes, each the fields that differ from what was sent before. */
  | { type: 'changes'; changes: ResourceChange[] }
  | { type: 'resourceRemoved'; resource: number }
  | { type: 'log'; log: LiveLog }
  | { type: 'signedOut'; reason: string };
