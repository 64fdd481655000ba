import { z } from 'zod';
import { DateString, Id, LockVersion, Metadata, Money, Stamps, Timestamp } from './common.js';

const optText = (max: number) => z.string().max(max).nullable().optional();

/** A non-negative amount of money ("12.50"). */
export const NonNegativeMoney = Money.refine((v) => !v.startsWith('-'), 'must not be negative');
/** What a payment moves: at least one cent (a number such as 5e-324 rounds to 0 and is refused). */
export const PaymentAmount = Money.refine((v) => Number(v) >= 0.01, 'must be at least 0.01');
/** A percentage between 0 and 100 as a decimal string ("20", "7.5"). */
export const Percent = Money.refine((v) => !v.startsWith('-') && Number(v) <= 100, 'must be 0 to 100');

export const BillingPeriod = z.enum(['day', 'week', 'month', 'year']);
export type BillingPeriod = z.infer<typeof BillingPeriod>;

// ---- packages -------------------------------------------------------------------------------

export const packageWritable = {
  name: z.string().min(1).max(200),
  description: optText(20_000),
  notes: optText(20_000),
  state: z.enum(['active', 'archived']).optional(),
  allowsBooking: z.boolean().optional(),
  setupFee: NonNegativeMoney.optional(),
  recurringFee: NonNegativeMoney.optional(),
  recurringFeePeriod: BillingPeriod.optional(),
  prorate: z.boolean().optional(),
  minimumDuration: z.number().int().min(0).nullable().optional(),
  minimumDurationUnit: BillingPeriod.nullable().optional(),
  endsAutomatically: z.boolean().optional(),
  cancellationTime: z.number().int().min(0).nullable().optional(),
  cancellationTimeUnit: BillingPeriod.nullable().optional(),
  metadata: Metadata(4096).nullable().optional(),
};
export const PackageCreate = z.strictObject(packageWritable);
export const PackageUpdate = z.object({
  ...z.object(packageWritable).partial().shape,
  lockVersion: LockVersion,
});
export const PackageRecord = z.object({
  id: Id,
  account: Id,
  name: z.string(),
  description: z.string().nullable(),
  notes: z.string().nullable(),
  state: z.enum(['active', 'archived']),
  allowsBooking: z.boolean(),
  setupFee: z.string(),
  recurringFee: z.string(),
  recurringFeePeriod: BillingPeriod,
  prorate: z.boolean(),
  minimumDuration: z.number().nullable(),
  minimumDurationUnit: z.string().nullable(),
  endsAutomatically: z.boolean(),
  cancellationTime: z.number().nullable(),
  cancellationTimeUnit: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  ...Stamps,
  _embedded: z
    .object({
      memberCount: z
        .number()
        .int()
        .optional()
        .describe('With embed=memberCount: members holding the package today (space-local)'),
    })
    .optional(),
});
export type PackageRecord = z.infer<typeof PackageRecord>;

export const CreditResource = z.strictObject({
  type: z.enum(['resourceType', 'resource']),
  resourceType: Id.nullable().optional(),
  resource: Id.nullable().optional(),
});
export const CreditScope = z.enum(['global', 'usage', 'booking']);
export const CreditPeriod = z.enum(['once', 'day', 'week', 'month', 'year']);

export const PackageCreditUpdate = z.object({
  scope: CreditScope.optional(),
  amount: NonNegativeMoney.optional(),
  period: CreditPeriod.optional(),
  resources: z.array(CreditResource).max(100).optional(),
  lockVersion: LockVersion,
});
export const PackageCreditRecord = z.object({
  id: Id,
  package: Id,
  scope: CreditScope,
  amount: z.string(),
  period: CreditPeriod,
  resources: z.array(
    z.object({
      type: z.string(),
      resourceType: Id.nullable().optional(),
      resource: Id.nullable().optional(),
    }),
  ),
  ...Stamps,
});

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'expected a time HH:MM');
export const PermissionTime = z
  .strictObject({ dayOfWeek: z.number().int().min(1).max(7), fromTime: clock, untilTime: clock })
  .refine((t) => t.fromTime < t.untilTime, 'untilTime must be after fromTime');
export type PermissionTime = z.infer<typeof PermissionTime>;

export const permissionWritable = {
  type: z.enum(['everything', 'resourceType', 'resource']),
  resourceType: Id.nullable().optional(),
  resource: Id.nullable().optional(),
  timeType: z.enum(['always', 'openingHours', 'custom']).optional(),
  times: z.array(PermissionTime).max(100).optional(),
  usageFeeDiscountPercent: Percent.optional(),
  bookingFeeDiscountPercent: Percent.optional(),
};
export const PackagePermissionCreate = z.strictObject(permissionWritable);
export const PackagePermissionUpdate = z.object({
  ...z.object(permissionWritable).partial().shape,
  lockVersion: LockVersion,
});
export const PackagePermissionRecord = z.object({
  id: Id,
  package: Id,
  type: z.enum(['everything', 'resourceType', 'resource']),
  resourceType: Id.nullable(),
  resource: Id.nullable(),
  timeType: z.enum(['always', 'openingHours', 'custom']),
  times: z.array(z.object({ dayOfWeek: z.number(), fromTime: z.string(), untilTime: z.string() })),
  usageFeeDiscountPercent: z.string(),
  bookingFeeDiscountPercent: z.string(),
  ...Stamps,
});

// ---- member packages ------------------------------------------------------------------------

export const MemberPackageCreate = z.strictObject({
  package: Id,
  fromDate: DateString.optional().describe("Default: today in the space's time zone"),
  untilDate: DateString.nullable().optional(),
  notes: optText(20_000),
});
export const MemberPackageUpdate = z.object({
  fromDate: DateString.optional(),
  untilDate: DateString.nullable().optional(),
  notes: optText(20_000),
  lockVersion: LockVersion,
});
export const MemberPackageRecord = z.object({
  id: Id,
  member: Id,
  package: Id,
  fromDate: z.string(),
  untilDate: z.string().nullable(),
  notes: z.string().nullable(),
  ...Stamps,
  _embedded: z.record(z.string(), z.unknown()).optional(),
});

/** What giving a member a package would charge and grant, before it is given. */
export const MemberPackagePreview = z.object({
  fromDate: z.string(),
  untilDate: z.string().nullable(),
  charges: z
    .array(
      z.object({
        dateTime: z.string(),
        description: z.string(),
        price: z.string(),
        taxPercent: z.string(),
      }),
    )
    .describe('The charges billing would create: those due at once, or on fromDate when it is later'),
  total: z.string().describe('The sum of the charges’ prices'),
  credits: z.array(
    z.object({
      scope: z.string(),
      amount: z.string(),
      fromDate: z.string(),
      untilDate: z.string().nullable(),
    }),
  ),
});
export type MemberPackagePreview = z.infer<typeof MemberPackagePreview>;

// ---- charges --------------------------------------------------------------------------------

export const ChargeCreate = z.strictObject({
  member: Id,
  dateTime: Timestamp.optional(),
  description: z.string().min(1).max(500),
  price: Money,
  taxPercent: Percent.optional().describe("Default: the space's tax rate"),
  booking: Id.nullable().optional(),
  resourceLog: Id.nullable().optional(),
  memberPackage: Id.nullable().optional(),
});
/** PUT /charges/{id}: while the charge is on no invoice. */
export const ChargeUpdate = z.object({
  dateTime: Timestamp.optional(),
  description: z.string().min(1).max(500).optional(),
  price: Money.optional(),
  taxPercent: Percent.optional(),
  lockVersion: LockVersion,
});
export const ChargeRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  dateTime: z.string(),
  description: z.string(),
  price: z.string(),
  taxPercent: z.string(),
  invoice: Id.nullable(),
  booking: Id.nullable(),
  resourceLog: Id.nullable(),
  memberPackage: Id.nullable(),
  calculated: z.boolean(),
  ...Stamps,
});
export type ChargeRecord = z.infer<typeof ChargeRecord>;

// ---- invoices -------------------------------------------------------------------------------

export const InvoiceCreate = z.strictObject({
  member: Id,
  date: DateString.optional(),
  dueDate: DateString.nullable().optional(),
  header: optText(5000),
  footer: optText(5000),
  text: optText(5000),
  notes: optText(20_000),
});
export const InvoiceUpdate = z.object({
  dueDate: DateString.nullable().optional(),
  header: optText(5000),
  footer: optText(5000),
  text: optText(5000),
  notes: optText(20_000),
  lockVersion: LockVersion,
});
export const InvoiceCancel = z
  .object({ lockVersion: LockVersion.optional() })
  .nullish()
  .describe('Optional: the lockVersion the client last read (409 when stale)');
export const InvoiceState = z.enum(['unpaid', 'paid', 'cancelled']);
/** The invoice's latest SEPA direct debit (docs/PAYMENTS.md, "SEPA direct debit files"), or null when it had none. */
export const InvoiceCollection = z
  .object({
    batch: Id,
    state: z.enum(['inCollection', 'collected', 'returned']),
    collectionDate: z.string(),
    returnReason: z.string().nullable(),
  })
  .nullable()
  .describe(
    'The invoice’s latest SEPA direct debit: `inCollection` while its batch is with the bank (the invoice is in no other batch and no payment is put on it by default), `collected` once recorded as paid, `returned` when the debit came back (the invoice is open again)',
  );
export const InvoiceRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  member: Id,
  date: z.string(),
  dueDate: z.string().nullable(),
  number: z.string(),
  state: InvoiceState,
  currency: z.string(),
  total: z.string(),
  totalWithFees: z.string(),
  totalPayable: z.string(),
  paid: z.string(),
  cancelledInvoice: Id.nullable(),
  recipientName: z.string().nullable(),
  recipientCompany: z.string().nullable(),
  recipientAddress: z.string().nullable(),
  header: z.string().nullable(),
  footer: z.string().nullable(),
  text: z.string().nullable(),
  notes: z.string().nullable(),
  payments: z.array(z.object({ payment: Id, amount: z.string() })),
  collection: InvoiceCollection,
  ...Stamps,
  /** `embed=details`: `{details}`, the invoice's lines as GET /invoices/{id}/details gives them. */
  _embedded: z.record(z.string(), z.unknown()).optional(),
});
export const InvoiceDetails = z.object({
  id: Id,
  totalExcludingTax: z.string(),
  charges: z.array(ChargeRecord.extend({ netPrice: z.string() })),
  taxCategories: z.array(
    z.object({ taxPercent: z.string(), total: z.string(), net: z.string(), tax: z.string() }),
  ),
});

// ---- payments -------------------------------------------------------------------------------

export const PaymentState = z.enum(['completed', 'pending']);
export const PaymentMethodName = z
  .enum(['manual', 'cash', 'transfer', 'card', 'other'])
  .describe('How the money came: cash, bank transfer, card, other (default manual)');
export const PaymentCreate = z.strictObject({
  member: Id,
  method: PaymentMethodName.optional(),
  date: DateString.optional(),
  total: PaymentAmount,
  invoices: z
    .array(Id)
    .max(100)
    .optional()
    .describe("Invoices to settle; default: the member's oldest open ones"),
  state: PaymentState.optional(),
  notes: optText(20_000),
});
export const PaymentUpdate = z.object({
  date: DateString.optional(),
  method: PaymentMethodName.optional(),
  total: PaymentAmount.optional(),
  invoices: z.array(Id).max(100).optional(),
  state: PaymentState.optional(),
  notes: optText(20_000),
  lockVersion: LockVersion,
});
export const PaymentRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  date: z.string(),
  total: z.string(),
  state: PaymentState,
  method: z.string(),
  invoices: z.array(Id),
  allocations: z.array(z.object({ invoice: Id, amount: z.string() })),
  notes: z.string().nullable(),
  ...Stamps,
});
// No body (or `false`) is fine: the request then carries the payment's notes.
export const PaymentRequestCreate = z.object({ notes: optText(2000) }).nullish();
export const PaymentRequestRecord = z.object({
  id: Id,
  payment: Id,
  member: Id,
  total: z.string(),
  notes: z.string().nullable(),
  state: z.enum(['requested', 'paid', 'cancelled']),
  provider: z.string(),
  reference: z.string(),
  instructions: z.string().nullable(),
  createdAt: z.string(),
});

// ---- jobs -----------------------------------------------------------------------------------

export const JobType = z.enum(['packageBilling', 'invoiceRun']);
export const JobState = z.enum(['queued', 'running', 'succeeded', 'failed']);
export const JobCreate = z.strictObject({
  type: JobType,
  member: Id.optional().describe('invoiceRun: only this member (default: every member with open charges)'),
});
export const JobRecord = z.object({
  id: Id,
  account: Id,
  type: JobType,
  state: JobState,
  params: z.record(z.string(), z.unknown()),
  progress: z.number().int(),
  result: z.unknown().describe('What the job produced; null until it has succeeded'),
  error: z.string().nullable(),
  attempts: z.number().int(),
  runAfter: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  ...Stamps,
});
/** GET /jobs/invoice-run-preview: `member` limits the preview as it limits the run. */
export const InvoiceRunPreviewQuery = z.object({
  member: Id.optional().describe('Only this member (as `POST /jobs {type: invoiceRun, member}`)'),
});
export const InvoiceRunPreview = z.object({
  memberCount: z.number().int().describe('How many members the run would invoice'),
  total: z.string().describe('The sum of the invoices it would make'),
  invoices: z.array(
    z.object({
      member: Id,
      memberName: z.string(),
      memberNumber: z.string().nullable(),
      date: z.string(),
      dueDate: z.string().nullable(),
      currency: z.string(),
      total: z.string(),
      charges: z.array(ChargeRecord).describe('The lines: the charges the invoice would take'),
    }),
  ),
  skipped: z.array(z.object({ member: Id, reason: z.string() })),
});
export type InvoiceRunPreview = z.infer<typeof InvoiceRunPreview>;

/** GET /balances: members whose balance is not zero. */
export const OpenBalancesQuery = z.object({
  limit: z.number().int().min(1).max(1000).default(50),
  offset: z.number().int().min(0).default(0),
});
export const OpenBalance = z.object({
  member: Id,
  memberName: z.string(),
  memberNumber: z.string().nullable(),
  balance: z.string().describe('Completed payments minus every charge: negative when the member owes money'),
  unpaidInvoices: z.string().describe('What is still open on their unpaid invoices'),
  uninvoicedCharges: z.string().describe('Their charges on no invoice yet'),
});
export type OpenBalance = z.infer<typeof OpenBalance>;
export type MemberPackageRecord = z.infer<typeof MemberPackageRecord>;
export type InvoiceRecord = z.infer<typeof InvoiceRecord>;
export type PaymentRecord = z.infer<typeof PaymentRecord>;
