import { z } from 'zod';
import { CreditResource, CreditScope, NonNegativeMoney } from './billing.js';
import { DateString, Id, LockVersion, Stamps, Timestamp } from './common.js';
import { memberWritable } from './identity.js';

/** The member sub-resources of the commercial interface (/members/{id}/...). */

const optText = (max: number) => z.string().max(max).nullable().optional();

// ---- credits --------------------------------------------------------------------------------

const creditWritable = {
  amount: NonNegativeMoney,
  scope: CreditScope.optional().describe('What the credit pays for (default global)'),
  resources: z.array(CreditResource).max(100).optional().describe('Only these resources (none: any)'),
  fromDate: DateString.optional().describe('First day the credit applies (default today)'),
  untilDate: DateString.nullable().optional().describe('Day the credit ends (exclusive; null: never)'),
  notes: optText(2000),
};
/** POST /members/{id}/credits: a credit an admin gives by hand. */
export const MemberCreditCreate = z.strictObject(creditWritable);
export const MemberCreditUpdate = z.object({
  ...z.object(creditWritable).partial().shape,
  lockVersion: LockVersion,
});
export const MemberCreditRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  memberPackage: Id.nullable(),
  packageCredit: Id.nullable(),
  scope: z.string(),
  resources: z.array(z.unknown()),
  amount: z.string(),
  remaining: z.string(),
  fromDate: z.string(),
  untilDate: z.string().nullable(),
  notes: z.string().nullable(),
  ...Stamps,
});
export const CreditUseRecord = z.object({
  id: Id,
  member: Id,
  memberCredit: Id,
  amount: z.string(),
  resourceLog: Id.nullable(),
  booking: Id.nullable(),
  charge: Id.nullable(),
  createdAt: Timestamp,
});

// ---- balance items --------------------------------------------------------------------------

export const BalanceItem = z.object({
  type: z.enum(['charge', 'invoice', 'payment']),
  id: Id,
  date: z.string(),
  description: z.string(),
  amount: z.string().describe('What it adds to the balance: negative for charges and invoices'),
});
export const BalanceItems = z.object({
  member: Id,
  balance: z.string(),
  sumInvoices: z.string(),
  sumPayments: z.string(),
  sumCharges: z.string(),
  sumUnpaidBookings: z.string(),
  items: z.array(BalanceItem),
});

// ---- scheduled changes ----------------------------------------------------------------------

const { space: _space, ...changeable } = memberWritable;
const changeFields = z.object(changeable).partial().shape;
/** POST /members/{id}/changes: member fields to write on `date`. */
export const MemberChangeCreate = z.strictObject({
  date: DateString.describe('The day (in the member’s space) the change applies on'),
  ...changeFields,
});
export const MemberChangeUpdate = z.object({
  date: DateString.optional(),
  ...changeFields,
  lockVersion: LockVersion,
});
export const MemberChangeRecord = z.looseObject({
  id: Id,
  account: Id,
  member: Id,
  date: z.string(),
  state: z.enum(['scheduled', 'applied']),
  appliedAt: z.string().nullable(),
  changes: z
    .record(z.string(), z.array(z.unknown()).length(2))
    .describe('{field: [old, new]}: the member’s value when applied (now, while scheduled) and the new one'),
  ...Stamps,
});

// ---- device ---------------------------------------------------------------------------------

const deviceWritable = {
  name: optText(200),
  details: optText(2000),
  userAgent: optText(1000),
};
export const MemberDeviceUpdate = z.object(deviceWritable);
export const MemberDeviceRecord = z.object({
  member: Id,
  name: z.string().nullable(),
  details: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const DeviceChangeCreate = z.strictObject(deviceWritable);
export const DeviceChangeUpdate = z.object({ ...deviceWritable, lockVersion: LockVersion });
export const DeviceChangeRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  name: z.string().nullable(),
  details: z.string().nullable(),
  userAgent: z.string().nullable(),
  ...Stamps,
});

// ---- payment account, payment method, mandate -----------------------------------------------

export const PaymentAccountUpdate = z.object({
  provider: z.enum(['none', 'stripe', 'sepa', 'other']).nullable().optional(),
  customerReference: optText(200),
  emailAddress: z.email().max(254).nullable().optional(),
  notes: optText(2000),
});
export const PaymentAccountRecord = z.object({
  member: Id,
  provider: z.string().nullable(),
  customerReference: z.string().nullable(),
  emailAddress: z.string().nullable(),
  notes: z.string().nullable(),
  updatedAt: Timestamp,
  updatedBy: Id.nullable(),
});
const Iban = z
  .string()
  .transform((s) => s.replace(/\s+/g, '').toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/, 'expected an IBAN such as AT611904300234573201'));
export const PaymentMethodUpdate = z.object({
  type: z.enum(['sepa', 'card', 'bankTransfer', 'cash', 'other']),
  iban: Iban.nullable().optional(),
  bic: optText(11),
  accountOwnerName: optText(200),
  mandateReference: optText(35),
  mandateDate: DateString.nullable().optional(),
  cardBrand: optText(50),
  cardLast4: z
    .string()
    .regex(/^\d{4}$/, 'expected the last 4 digits')
    .nullable()
    .optional(),
});
export const PaymentMethodRecord = z.object({
  member: Id,
  type: z.string(),
  iban: z.string().nullable(),
  bic: z.string().nullable(),
  accountOwnerName: z.string().nullable(),
  mandateReference: z.string().nullable(),
  mandateDate: z.string().nullable(),
  cardBrand: z.string().nullable(),
  cardLast4: z.string().nullable(),
  updatedAt: Timestamp,
  updatedBy: Id.nullable(),
});
export const MandatePreview = z.object({
  member: Id,
  creditorId: z.string().nullable(),
  creditorName: z.string().nullable(),
  mandateReference: z.string(),
  accountOwnerName: z.string().nullable(),
  iban: z.string().nullable(),
  mandateText: z.string(),
});

// ---- member trainings: update (memberTraining_updated) --------------------------------------

export const MemberTrainingUpdate = z.object({
  date: DateString.optional(),
  fromDate: DateString.nullable().optional(),
  untilDate: DateString.nullable().optional(),
  trainer: optText(200),
  notes: optText(2000),
  lockVersion: LockVersion,
});
