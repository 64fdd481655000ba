import { z } from 'zod';
import { Id, LockVersion, Stamps, Timestamp } from './common.js';

/** Event categories a webhook subscribes to: the part of an event type before `_`. */
export const webhookCategories = [
  'member',
  'memberKey',
  'memberPackage',
  'memberTraining',
  'memberCredit',
  'resource',
  'resourceLog',
  'bridge',
  'booking',
  'charge',
  'invoice',
  'signUp',
  'checkIn',
  'problemReport',
] as const;
export const WebhookCategory = z.enum(webhookCategories);
export type WebhookCategory = z.infer<typeof WebhookCategory>;

/** Fabman's event types (api-fields.md, "Webhook events"), plus `test`. */
export const webhookEventTypes = [
  'member_created',
  'member_updated',
  'member_deleted',
  'memberKey_created',
  'memberKey_updated',
  'memberKey_deleted',
  'memberPackage_created',
  'memberPackage_updated',
  'memberPackage_deleted',
  'memberTraining_created',
  'memberTraining_updated',
  'memberTraining_deleted',
  'memberCredit_created',
  'memberCredit_updated',
  'memberCredit_deleted',
  'resource_created',
  'resource_updated',
  'resource_deleted',
  // A door contact reports the door open for longer than its agent's heldOpenSeconds.
  'resource_doorHeldOpen',
  'resourceLog_created',
  'resourceLog_updated',
  'resourceLog_deleted',
  'bridge_created',
  'bridge_deleted',
  'booking_created',
  'booking_updated',
  'booking_deleted',
  'charge_created',
  'charge_updated',
  'charge_deleted',
  'invoice_created',
  'invoice_updated',
  'signUp_created',
  'checkIn_created',
  'checkIn_updated',
  'problemReport_created',
  'problemReport_resolved',
  'test',
] as const;
export const WebhookEventType = z.enum(webhookEventTypes);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** States an admin may set; `failing` and `deactivated` are set by the hub (docs/WEBHOOKS.md). */
export const WebhookWritableState = z.enum(['active', 'paused']);
export const WebhookState = z.enum(['active', 'paused', 'failing', 'deactivated']);
export type WebhookState = z.infer<typeof WebhookState>;

const categoriesField = z
  .array(WebhookCategory)
  .min(1, 'choose at least one category')
  .describe(`Event categories to receive: ${webhookCategories.join(', ')}`);

const webhookWritable = {
  url: z.string().max(2000).describe('https:// URL that receives the events (POST)'),
  label: z.string().max(200).nullable().optional(),
  state: WebhookWritableState.optional(),
  notes: z.string().max(20_000).nullable().optional(),
  categories: categoriesField,
};

/** POST /webhooks: unknown fields are refused (400). */
export const WebhookCreate = z.strictObject(webhookWritable);
/** PUT /webhooks/{id}: unknown fields ignored; `rotateSecret: true` makes a new signing secret. */
export const WebhookUpdate = z.object({
  ...z.object(webhookWritable).partial().shape,
  rotateSecret: z.boolean().optional().describe('Make a new signing secret (answered once in `secret`)'),
  lockVersion: LockVersion,
});

export const WebhookRecord = z.object({
  id: Id,
  account: Id,
  url: z.string(),
  label: z.string().nullable(),
  state: WebhookState,
  notes: z.string().nullable(),
  categories: z.array(WebhookCategory),
  failingSince: Timestamp.nullable().describe('Start of the current run of failed deliveries'),
  ...Stamps,
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** Create and rotate answers: the record plus its signing secret, shown only this once. */
export const WebhookWithSecret = WebhookRecord.extend({
  secret: z.string().optional().describe('HMAC-SHA256 signing secret; shown only when created or rotated'),
});

/** The JSON body POSTed to a receiver. */
export const WebhookEventPayload = z.object({
  id: Id,
  type: WebhookEventType,
  createdAt: Timestamp,
  details: z.record(z.string(), z.unknown()),
});
export type WebhookEventPayload = z.infer<typeof WebhookEventPayload>;

export const WebhookAttempt = z.object({
  at: Timestamp,
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable().describe('The first bytes of the response body'),
});

export const WebhookDeliveryState = z.enum(['pending', 'delivered', 'failed']);

/** GET /webhooks/{id}/events: an event and its delivery to this webhook with every attempt. */
export const WebhookEventRecord = WebhookEventPayload.extend({
  delivery: z.object({
    id: Id,
    state: WebhookDeliveryState,
    nextAttemptAt: Timestamp.nullable(),
    deliveredAt: Timestamp.nullable(),
    attempts: z.array(WebhookAttempt),
  }),
});
export type WebhookEventRecord = z.infer<typeof WebhookEventRecord>;

/** POST /webhooks/{id}/events (and /test): sends a `test` event at once. */
export const WebhookTestBody = z.strictObject({
  message: z.string().max(1000).optional(),
});
