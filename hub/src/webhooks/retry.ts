import type { Clock, WebhookSettings } from '../context.js';
import type { Db } from '../db/crud.js';
import { requiredRow } from '../db/records.js';
import { notFound, unprocessable } from '../errors.js';
import type { TokenBox } from '../secrets.js';
import type { WebhookRow } from './webhooks.js';
import { findDelivery, finishDelivery, insertAttempt, makeQueueDue } from './webhooks.repository.js';
import { attemptDelivery } from './worker.js';

const iso = (clock: Clock) => clock.now().toISOString();

export type RetryOutcome = 'scheduled' | 'sent';

/**
 * An admin's "retry now" of one delivery.
 * - A queued (pending) delivery is due at once: it and the deliveries queued before it (which
 *   go first, the order per webhook is kept) get `nextAttemptAt` now, and the worker takes it on
 *   its next pass (the caller wakes it). The attempt is the worker's, with its usual bookkeeping
 *   (failing, back to active on success).
 * - A failed test delivery (tests are never queued) is sent again now, once, like a new test.
 * - A delivered one is refused, as is a queued one while the webhook is paused or deactivated
 *   (resuming it, `state: active`, sends its whole queue).
 */
export async function retryDelivery(
  db: Db,
  deps: { tokens: TokenBox; settings: WebhookSettings; clock: Clock },
  webhook: WebhookRow,
  deliveryId: number,
): Promise<RetryOutcome> {
  const delivery = await findDelivery(db, webhook.id, deliveryId);
  if (!delivery) throw notFound('Webhook delivery');
  if (delivery.state === 'delivered') {
    throw unprocessable('This delivery has been delivered already', { delivery: 'delivered' });
  }
  if (delivery.state === 'pending') {
    if (webhook.state === 'paused' || webhook.state === 'deactivated') {
      throw unprocessable(
        `The webhook is ${webhook.state}: set its state to active to send its queued deliveries`,
        { state: webhook.state },
      );
    }
    await makeQueueDue(db, webhook.id, iso(deps.clock), delivery.id);
    return 'scheduled';
  }
  // A failed test event ('test': one whose attempt never finished): send it again, once.
  const event = await requiredRow(db, 'webhook_events', delivery.event);
  const at = iso(deps.clock);
  const result = await attemptDelivery(
    {
      deliveryId: delivery.id,
      urlEncrypted: webhook.urlEncrypted,
      secretEncrypted: webhook.secretEncrypted,
      event: { id: event.id, type: event.type, createdAt: event.createdAt, details: event.details },
    },
    deps,
  );
  await db.transaction().execute(async (trx) => {
    await insertAttempt(trx, delivery.id, at, result);
    await finishDelivery(trx, delivery.id, {
      ok: result.ok,
      attempts: delivery.attempts + 1,
      at: iso(deps.clock),
    });
  });
  return 'sent';
}
