import type { Db } from '../db/crud.js';

/**
 * Where a notification (mail to the member, a note to the admins) hooks into payments through
 * Stripe. Both run after the transaction that recorded the payment or failure has committed,
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

/** A payment through Stripe was received and recorded. No notification is sent yet. */
export async function stripePaymentReceived(
  _db: Db,
  _notice: Extract<PaymentNotice, { kind: 'received' }>,
): Promise<void> {}

/** A payment through Stripe failed (declined card, returned debit). No notification is sent yet. */
export async function stripePaymentFailed(
  _db: Db,
  _notice: Extract<PaymentNotice, { kind: 'failed' }>,
): Promise<void> {}
