import { type Db, parseJson } from '../db/crud.js';
import { type PaymentPart, paymentDetailsOf, writePaymentDetails } from './payments.repository.js';
import { sepaSettings } from './settings.repository.js';

/**
 * A member's payment account (who pays, at which provider) and payment method (how: SEPA direct
 * debit, card, ...), as a client writes them. The hub keeps them for the member; it charges
 * nothing through them itself. None written: the routes answer 204.
 */

export type { PaymentPart } from './payments.repository.js';

const accountFields = ['provider', 'customerReference', 'emailAddress', 'notes'] as const;
const methodFields = [
  'type',
  'iban',
  'bic',
  'accountOwnerName',
  'mandateReference',
  'mandateDate',
  'cardBrand',
  'cardLast4',
] as const;
const fieldsOf: Record<PaymentPart, readonly string[]> = {
  paymentAccount: accountFields,
  paymentMethod: methodFields,
};

/** The part as its record, or null when none was written. */
export async function paymentPart(db: Db, memberId: number, part: PaymentPart) {
  const row = await paymentDetailsOf(db, memberId);
  const stored = row ? parseJson<Record<string, unknown>>(row[part]) : null;
  if (!row || !stored) return null;
  const record: Record<string, unknown> = { member: memberId };
  for (const f of fieldsOf[part]) record[f] = stored[f] ?? null;
  return { ...record, updatedAt: row.updatedAt, updatedBy: row.updatedBy };
}

/**
 * Writes the part (null deletes it). A PUT of the payment account keeps fields it leaves out;
 * a payment method is replaced whole (a new method is a new mandate or card).
 */
export async function writePaymentPart(
  db: Db,
  member: { id: number; account: number },
  part: PaymentPart,
  body: Record<string, unknown> | null,
  stamp: { at: string; by: number | null },
) {
  const row = await paymentDetailsOf(db, member.id);
  let value: Record<string, unknown> | null = null;
  if (body) {
    const kept =
      part === 'paymentAccount' && row ? (parseJson<Record<string, unknown>>(row[part]) ?? {}) : {};
    value = { ...kept };
    for (const f of fieldsOf[part]) if (body[f] !== undefined) value[f] = body[f];
  }
  const text = value ? JSON.stringify(value) : null;
  if (row || text) await writePaymentDetails(db, row, member, { part, text }, stamp);
  return paymentPart(db, member.id, part);
}

const defaultMandateText =
  'By signing this mandate form, you authorise {creditorName} to send instructions to your bank to debit your account and your bank to debit your account in accordance with the instructions from {creditorName}.';

/**
 * The SEPA mandate the member would sign: the space's creditor id and mandate text (its
 * billing settings, placeholders filled in) with the member's account holder and IBAN.
 */
export async function mandatePreview(
  db: Db,
  member: { id: number; space: number; firstName: string; lastName: string },
) {
  const settings = await sepaSettings(db, member.space);
  const method = (await paymentPart(db, member.id, 'paymentMethod')) as Record<string, string | null> | null;
  const creditorName = settings?.sepaAccountOwnerName ?? settings?.statementName ?? null;
  const mandateReference = method?.mandateReference ?? `M${String(member.id).padStart(8, '0')}`;
  const accountOwnerName = method?.accountOwnerName ?? `${member.firstName} ${member.lastName}`.trim();
  const fill = (text: string) =>
    text
      .replaceAll('{creditorName}', creditorName ?? 'the creditor')
      .replaceAll('{creditorId}', settings?.sepaCreditorId ?? '')
      .replaceAll('{mandateReference}', mandateReference)
      .replaceAll('{accountOwnerName}', accountOwnerName);
  return {
    member: member.id,
    creditorId: settings?.sepaCreditorId ?? null,
    creditorName,
    mandateReference,
    accountOwnerName,
    iban: method?.iban ?? null,
    mandateText: fill(settings?.sepaMandateText ?? defaultMandateText),
  };
}

// ---- payment methods saved at Stripe ---------------------------------------------------------

/** A payment method saved at Stripe: the record's fields and the Stripe ids kept beside them. */
export interface StripeMethod {
  type: 'card' | 'sepa';
  accountOwnerName: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  mandateReference: string | null;
  mandateDate: string | null;
  stripeCustomer: string | null;
  stripePaymentMethod: string;
  /** Stripe's type: card or sepa_debit. */
  stripeType: string;
  /** The last 4 digits of the card or IBAN. */
  last4: string | null;
}

/**
 * Saves a method set up at Stripe as the member's payment method (replacing the one before).
 * The Stripe ids stay in the stored part beside the record's fields (the record does not show
 * them); a PUT or DELETE of the payment method drops them, and the billing run then charges
 * nothing at Stripe.
 */
export async function writeStripePaymentMethod(
  db: Db,
  member: { id: number; account: number },
  method: StripeMethod,
  stamp: { at: string; by: number | null },
): Promise<void> {
  const row = await paymentDetailsOf(db, member.id);
  const text = JSON.stringify({ ...method, iban: null, bic: null, provider: 'stripe' });
  await writePaymentDetails(db, row, member, { part: 'paymentMethod', text }, stamp);
}

/** The member's payment method saved at Stripe, or null when their method is not one. */
export async function stripePaymentMethodOf(
  db: Db,
  memberId: number,
): Promise<(StripeMethod & { updatedAt: string }) | null> {
  const row = await paymentDetailsOf(db, memberId);
  return stripeMethodIn(row?.paymentMethod ?? null, row?.updatedAt ?? '');
}

/** The Stripe method in a stored payment method (JSON text), or null. */
export function stripeMethodIn(text: string | null, updatedAt: string) {
  const stored = parseJson<Record<string, unknown>>(text);
  if (stored?.provider !== 'stripe' || typeof stored.stripePaymentMethod !== 'string') return null;
  return { ...(stored as unknown as StripeMethod), updatedAt };
}
