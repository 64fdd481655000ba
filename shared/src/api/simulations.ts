import { z } from 'zod';
import { Id, Timestamp } from './common.js';

/**
 * Access simulations (`POST /access-simulations`): a proposed change, given as the request that
 * would make it, and who would gain or lose which resource when, answered without changing
 * anything (docs/SIMULATIONS.md).
 */
export const AccessSimulationRequest = z
  .object({
    method: z
      .enum(['POST', 'PUT', 'DELETE'])
      .describe('The method of the request that would make the change'),
    path: z
      .string()
      .min(1)
      .max(300)
      .describe(
        'Its path, with or without /api/v1: a package, a package permission, a training course, a member’s package or training, a space’s opening hours or holidays',
      ),
    body: z.unknown().optional().describe('Its body, as that request would send it (none for DELETE)'),
    from: Timestamp.optional().describe(
      'Start of the simulated time; default: the start of the current hour',
    ),
    until: Timestamp.optional().describe(
      'End of the simulated time (at most 31 days after from); default: a week after from',
    ),
    slotMinutes: z
      .number()
      .int()
      .min(15)
      .max(1440)
      .refine((n) => n % 15 === 0, 'a multiple of 15 minutes')
      .default(60)
      .describe('Length of a time slot; the policy decides at the start of each (default 60)'),
    members: z
      .array(Id)
      .max(10_000)
      .optional()
      .describe('Ask only about these members (default: all the change can reach)'),
    resources: z.array(Id).max(10_000).optional().describe('Ask only about these resources (default: all)'),
  })
  .strict();
export type AccessSimulationRequest = z.input<typeof AccessSimulationRequest>;

export const AccessSlot = z.object({
  from: z.string().describe('Start of the slots (ISO time)'),
  until: z.string().describe('End of the slots (ISO time)'),
});
export type AccessSlot = z.infer<typeof AccessSlot>;

export const AccessChange = z.object({
  member: Id,
  memberName: z.string(),
  resource: Id,
  resourceName: z.string(),
  gains: z.array(AccessSlot).describe('Time the member may use the resource after the change and not before'),
  loses: z.array(AccessSlot).describe('Time the member may use the resource before the change and not after'),
  reason: z
    .string()
    .describe(
      'The denial reason that ends (gains) or begins (loses), e.g. openingHours; for both, the one that begins',
    ),
  message: z.string().describe('The same in words'),
});
export type AccessChange = z.infer<typeof AccessChange>;

export const AccessSimulationResult = z.object({
  from: z.string(),
  until: z.string(),
  slotMinutes: z.number().int(),
  timeZone: z.string().describe('The space’s time zone (the slots are aligned to its hours)'),
  evaluated: z
    .object({
      members: z.number().int(),
      resources: z.number().int(),
      slots: z.number().int(),
      decisions: z
        .number()
        .int()
        .describe(
          'The access policy’s decisions taken, before and after the change: one per class of members, resources and slots whose inputs are the same (each member x resource x slot takes its class’s answer)',
        ),
    })
    .describe(
      'How much the simulation asked the access policy (members the change can reach, their resources)',
    ),
  changes: z.array(AccessChange),
});
export type AccessSimulationResult = z.infer<typeof AccessSimulationResult>;

/**
 * Shadow mode (`GET /shadow-report`): another access server's logged decisions compared with
 * our policy's for the same member, resource and moment (docs/MOVING.md).
 */
export const ShadowReport = z.object({
  resources: z
    .array(
      z.object({
        source: z.string().describe('The other server'),
        remoteResource: Id.describe('Its resource id'),
        resource: Id.nullable().describe('Ours (null: none here for it)'),
        resourceName: z.string().nullable(),
        compared: z.number().int(),
        agreed: z.number().int(),
        latest: z.string().nullable().describe('The latest compared decision'),
      }),
    )
    .describe('Agreement per resource'),
  disagreements: z
    .array(
      z.object({
        source: z.string(),
        remoteLog: Id.describe('Their resource log'),
        at: z.string(),
        remoteResource: Id,
        remoteMember: Id.nullable(),
        resource: Id.nullable(),
        resourceName: z.string().nullable(),
        member: Id.nullable(),
        memberName: z.string().nullable(),
        theirs: z.enum(['allowed', 'denied']),
        theirReason: z.string().nullable(),
        ours: z.enum(['allowed', 'denied']),
        ourReason: z.string().nullable(),
        ourMessage: z.string().nullable(),
      }),
    )
    .describe('The latest disagreements, newest first, with both reasons'),
});
export type ShadowReport = z.infer<typeof ShadowReport>;

/**
 * Shadow mode's webhook receiver (`/shadow-receivers`): the secret URL the other server posts its
 * resource log events to, so decisions are compared as they happen (docs/MOVING.md).
 */
export const ShadowReceiver = z.object({
  id: Id,
  source: z
    .string()
    .describe('The other server’s API base: the same source `makerspace-hub shadow --url` compares'),
  createdAt: Timestamp,
  rotatedAt: Timestamp.describe('When the current secret URL was made'),
  lastEventAt: Timestamp.nullable().describe('The latest event received (null: none yet)'),
  url: z
    .string()
    .optional()
    .describe('The receiver URL with its secret: answered only when it is made or rotated, never again'),
});
export type ShadowReceiver = z.infer<typeof ShadowReceiver>;

export const ShadowReceiverInput = z.object({
  source: z
    .string()
    .url()
    .max(500)
    .describe('The other server’s address (origin or API base), as given to `makerspace-hub shadow --url`'),
});
export type ShadowReceiverInput = z.infer<typeof ShadowReceiverInput>;

/** What the receiver answers the other server. */
export const ShadowWebhookResult = z.object({
  compared: z.boolean().describe('A decision was compared now'),
  agrees: z.boolean().optional().describe('Whether ours agrees (when compared now)'),
  note: z
    .string()
    .optional()
    .describe('Why nothing was compared: compared already, another event type, or a log that is no decision'),
});
export type ShadowWebhookResult = z.infer<typeof ShadowWebhookResult>;
