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
