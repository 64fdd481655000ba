import type { Notifications } from '../context.js';
import type { Db } from '../db/crud.js';

/**
 * Where payments through Stripe tell the member (and, of a failure, the admins) by mail, through
 * the notifications port. Both run after the transaction that recorded the payment or failure has committed,
 * once per payment or failure; an error they throw is logged and changes nothing recorded.
 */

export type PaymentNotice =
  | {
      kind: 'received';
      account: number;
      member: number;
      /** The invoice paid; null for a top-up of the prepaid balance. */
      invoice: number | null;
      /** The hub payment recorded (method `stripe`). */
      payment: number;
      amount: string;
      currency: string;
    }
  | {
      kind: 'failed';
      account: number;
      member: number;
      invoice: number | null;
      amount: string;
      currency: string;
      /** Stripe's decline code (e.g. insufficient_funds), else its error code. */
      failureCode: string | null;
      failureMessage: string;
      /** Whether the billing run tries the charge again later. */
      willRetry: boolean;
    };

/**
 * A payment through Stripe was received and recorded: the member hears of it. Or it failed
 * (declined card, returned debit): the member and the admins hear of it.
 */
export async function sendPaymentNotice(
  db: Db,
  notice: PaymentNotice,
  notifications: Pick<Notifications, 'payment'> | undefined,
  at: string,
): Promise<void> {
  const retry = notice.kind === 'failed' && notice.willRetry ? ' The hub tries again in a few days.' : '';
  const outcome =
    notice.kind === 'received'
      ? { outcome: 'received' as const, paymentId: notice.payment }
      : { outcome: 'failed' as const, reason: `${notice.failureMessage}${retry}` };
  await notifications?.payment(db, {
    account: notice.account,
    member: notice.member,
    total: notice.amount,
    currency: notice.currency,
    ...outcome,
    at,
  });
}
