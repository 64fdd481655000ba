import { z } from 'zod';
import { DateString, Id, LockVersion, Money, Stamps, Timestamp } from './common.js';

const text = (max: number) => z.string().max(max);
const optText = (max: number) => text(max).nullable().optional();

/** An IANA time zone name that this Node's Intl knows; stored in its canonical spelling. */
export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'expected an IANA time zone such as "Europe/Vienna"')
  .transform((tz) => new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone);

/** Space-local wall time `YYYY-MM-DDTHH:MM` (holidays). */
export const LocalDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'expected a space-local time YYYY-MM-DDTHH:MM')
  .refine((s) => {
    const d = new Date(`${s}:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'not a real date and time');

/** `HH:MM`; `24:00` ends a range at midnight. */
export const TimeOfDay = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'expected a time HH:MM (00:00-24:00)');

// ---- spaces ----

export const spaceWritable = {
  name: text(200).min(1),
  shortName: optText(50),
  timezone: TimeZone.optional(),
  locale: text(20).optional(),
  state: z.enum(['active', 'inactive']).optional(),
  emailAddress: z.email().max(254).nullable().optional(),
  website: optText(500),
  phone: optText(50),
  infoText: optText(20_000),
  bookingSlotsPerHour: z
    .number()
    .int()
    .min(1)
    .max(60)
    .refine((n) => 60 % n === 0, 'must divide 60 (1, 2, 3, 4, 6, 12, ...)')
    .optional(),
  bookingWindowMinHours: z.number().int().min(0).max(8760).optional(),
  bookingWindowMaxDays: z.number().int().min(0).max(3650).optional(),
  bookingLockInHours: z.number().int().min(0).max(8760).optional(),
  bookingMaxMinutesPerMemberDay: z.number().int().min(1).nullable().optional(),
  bookingMaxMinutesPerMemberWeek: z.number().int().min(1).nullable().optional(),
  bookingOpeningHours: z.boolean().optional(),
  bookingExclusiveMinutes: z.number().int().min(0).optional(),
  bookingRefundable: z.boolean().optional(),
  bookingTermsOfService: optText(20_000),
  occupancyLimit: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .nullable()
    .optional()
    .describe('How many people may be checked in at once; null: no limit'),
};

export const SpaceCreate = z.strictObject(spaceWritable);
export const SpaceUpdate = z.object({
  ...z.object(spaceWritable).partial().shape,
  lockVersion: LockVersion,
});

export const SpaceRecord = z.object({
  id: Id,
  account: Id,
  name: z.string(),
  shortName: z.string().nullable(),
  timezone: z.string(),
  locale: z.string(),
  state: z.string(),
  emailAddress: z.string().nullable(),
  website: z.string().nullable(),
  phone: z.string().nullable(),
  infoText: z.string().nullable(),
  calendarToken: z.string().nullable().describe('Shown to admins only'),
  calendarUrl: z.string().nullable().describe('Shown to admins only'),
  bookingSlotsPerHour: z.number().int(),
  bookingWindowMinHours: z.number().int(),
  bookingWindowMaxDays: z.number().int(),
  bookingLockInHours: z.number().int(),
  bookingMaxMinutesPerMemberDay: z.number().int().nullable(),
  bookingMaxMinutesPerMemberWeek: z.number().int().nullable(),
  bookingOpeningHours: z.boolean(),
  bookingExclusiveMinutes: z.number().int(),
  bookingRefundable: z.boolean(),
  bookingTermsOfService: z.string().nullable(),
  occupancyLimit: z.number().int().nullable(),
  ...Stamps,
  _embedded: z.record(z.string(), z.unknown()).optional(),
});
export type SpaceRecord = z.infer<typeof SpaceRecord>;

export const CalendarUrl = z.object({ calendarUrl: z.string() });

// ---- opening hours ----

export const OpeningHour = z.object({
  dayOfWeek: z.number().int().min(1).max(7).describe('1 = Monday .. 7 = Sunday'),
  fromTime: TimeOfDay,
  untilTime: TimeOfDay,
});
export type OpeningHour = z.infer<typeof OpeningHour>;
export const OpeningHours = z.array(OpeningHour).max(200);

// ---- holidays ----

export const HolidayCreate = z.strictObject({
  title: text(200).nullable().optional(),
  fromDateTime: LocalDateTime,
  untilDateTime: LocalDateTime,
  affects: z.enum(['all']).optional(),
});
export const HolidayUpdate = z.object({
  title: text(200).nullable().optional(),
  fromDateTime: LocalDateTime.optional(),
  untilDateTime: LocalDateTime.optional(),
  affects: z.enum(['all']).optional(),
  lockVersion: LockVersion,
});
export const HolidayRecord = z.object({
  id: Id,
  space: Id,
  title: z.string().nullable(),
  fromDateTime: z.string(),
  untilDateTime: z.string(),
  affects: z.string(),
  ...Stamps,
});
export type HolidayRecord = z.infer<typeof HolidayRecord>;

// ---- billing settings ----

export const billingSettingsWritable = {
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'expected an ISO 4217 currency code such as "EUR"')
    .transform((c) => c.toUpperCase()),
  taxPercent: Money,
  invoiceNumberPrefix: text(50),
  nextInvoiceNumber: z.number().int().min(1),
  invoiceHeader: optText(20_000),
  invoiceFooter: optText(20_000),
  defaultInvoiceDeadline: z.number().int().min(0),
  defaultInvoiceDeadlineUnit: z.enum(['day', 'week', 'month']),
  statementName: optText(22),
  stripeUser: optText(200),
  stripePublicKey: optText(200),
  stripeName: optText(200),
  stripeLivemode: z.boolean(),
  // Write-only: stored sealed, never answered (the record says whether each is set).
  stripeSecretKey: optText(200).describe(
    'Write-only: the Stripe secret key (sk_test_..., sk_live_... or a restricted rk_ key); null removes it',
  ),
  stripeWebhookSecret: optText(200).describe(
    'Write-only: the signing secret (whsec_...) of the Stripe webhook endpoint; null removes it',
  ),
  enableSepa: z.boolean(),
  sepaCreditorId: optText(50),
  sepaIban: optText(50),
  sepaAccountOwnerName: optText(200),
  sepaMandateText: optText(20_000),
  sepaBic: optText(11).describe('The BIC of the space’s own bank account (SEPA direct debit files)'),
  /** What invoices print about the space: its name (else the space's), address and tax id. */
  invoiceName: optText(200),
  invoiceAddress: optText(1000),
  invoiceTaxId: optText(50),
};
export const BillingSettingsUpdate = z.object({
  ...z.object(billingSettingsWritable).partial().shape,
  lockVersion: LockVersion,
});
export const BillingSettingsRecord = z.object({
  id: Id,
  space: Id,
  account: Id,
  currency: z.string(),
  taxPercent: z.string(),
  invoiceNumberPrefix: z.string(),
  nextInvoiceNumber: z.number().int(),
  invoiceHeader: z.string().nullable(),
  invoiceFooter: z.string().nullable(),
  defaultInvoiceDeadline: z.number().int(),
  defaultInvoiceDeadlineUnit: z.string(),
  statementName: z.string().nullable(),
  stripeUser: z.string().nullable(),
  stripePublicKey: z.string().nullable(),
  stripeName: z.string().nullable(),
  stripeLivemode: z.boolean(),
  stripeSecretKeySet: z.boolean().describe('Whether a Stripe secret key is stored (it is never answered)'),
  stripeWebhookSecretSet: z
    .boolean()
    .describe('Whether a Stripe webhook signing secret is stored (it is never answered)'),
  enableSepa: z.boolean(),
  sepaCreditorId: z.string().nullable(),
  sepaIban: z.string().nullable(),
  sepaAccountOwnerName: z.string().nullable(),
  sepaMandateText: z.string().nullable(),
  sepaBic: z.string().nullable(),
  invoiceName: z.string().nullable(),
  invoiceAddress: z.string().nullable(),
  invoiceTaxId: z.string().nullable(),
  /** `image/png` or `image/jpeg` when invoices print a logo (PUT .../billing-settings/logo), else null. */
  invoiceLogoType: z.string().nullable(),
  ...Stamps,
});
export type BillingSettingsRecord = z.infer<typeof BillingSettingsRecord>;

// ---- training courses and member trainings ----

export const DurationUnit = z.enum(['day', 'week', 'month', 'year']);

export const trainingCourseWritable = {
  title: text(200).min(1),
  notes: optText(20_000),
  state: z.enum(['active', 'inactive']).optional(),
  defaultDuration: z.number().int().min(1).nullable().optional(),
  defaultDurationUnit: DurationUnit.nullable().optional(),
  resources: z.array(Id).max(1000).optional().describe('Resources this course qualifies for'),
};
export const TrainingCourseCreate = z.strictObject(trainingCourseWritable);
export const TrainingCourseUpdate = z.object({
  ...z.object(trainingCourseWritable).partial().shape,
  lockVersion: LockVersion,
});
export const TrainingCourseRecord = z.object({
  id: Id,
  account: Id,
  title: z.string(),
  notes: z.string().nullable(),
  state: z.string(),
  defaultDuration: z.number().int().nullable(),
  defaultDurationUnit: z.string().nullable(),
  resources: z.array(Id),
  ...Stamps,
});

export const MemberTrainingCreate = z.strictObject({
  trainingCourse: Id,
  date: DateString.optional().describe('Day of the training (default: today)'),
  fromDate: DateString.nullable().optional().describe('Valid from (default: date)'),
  untilDate: DateString.nullable()
    .optional()
    .describe("Valid until (default: date + the course's default duration)"),
  trainer: optText(200).describe('Who gave the training'),
  notes: optText(2000),
});
export const MemberTrainingRecord = z.object({
  id: Id,
  member: Id,
  trainingCourse: Id,
  date: z.string(),
  fromDate: z.string().nullable(),
  untilDate: z.string().nullable(),
  trainer: z.string().nullable(),
  signedBy: Id.nullable().describe(
    'The member who recorded the training: an admin or a trainer of the course',
  ),
  notes: z.string().nullable(),
  ...Stamps,
  _embedded: z
    .object({
      member: z
        .object({ id: Id, firstName: z.string(), lastName: z.string().nullable() })
        .nullable()
        .optional()
        .describe('With embed=member (GET /member-trainings)'),
    })
    .optional(),
});
export type MemberTrainingRecord = z.infer<typeof MemberTrainingRecord>;
export type TrainingCourseRecord = z.infer<typeof TrainingCourseRecord>;

export const MemberTrainingsQuery = {
  member: Id.optional().describe('Trainings of this member'),
  trainingCourse: Id.optional().describe('Trainings of this course'),
  signedBy: Id.optional().describe('Trainings this member recorded (a trainer sees the ones they signed)'),
  untilFrom: DateString.optional().describe('Valid until this date or later'),
  untilTo: DateString.optional().describe('Valid until this date or earlier (expiring by then)'),
};

// ---- trainers of a course ----

export const CourseTrainerCreate = z.strictObject({
  member: Id.describe('The member who may record trainings of this course from now on'),
});
export const CourseTrainerRecord = z.object({
  trainingCourse: Id,
  member: Id,
  createdAt: z.string(),
  createdBy: Id.nullable(),
  _embedded: z
    .object({ member: z.object({ id: Id, firstName: z.string(), lastName: z.string().nullable() }) })
    .optional(),
});
export type CourseTrainerRecord = z.infer<typeof CourseTrainerRecord>;

export const TrainingTapCreate = z.strictObject({
  trainingCourse: Id.describe('The course to record; it must unlock this resource'),
});
export const TrainingTapRecord = z.object({
  id: Id,
  resource: Id,
  trainingCourse: Id,
  trainer: Id,
  state: z
    .enum(['waiting', 'expired', 'recorded', 'cancelled'])
    .describe('waiting for a card tap at the resource; recorded once a trainee tapped'),
  createdAt: z.string(),
  expiresAt: z.string(),
  trainee: Id.nullable(),
  memberTraining: Id.nullable(),
  _embedded: z.object({
    trainee: z.object({ id: Id, firstName: z.string(), lastName: z.string().nullable() }).nullable(),
  }),
});
export type TrainingTapRecord = z.infer<typeof TrainingTapRecord>;

// ---- bookings ----

export const BookingState = z.enum(['confirmed', 'cancelled']);
const Instant = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'expected an ISO 8601 timestamp such as 2026-01-31T09:00:00.000Z',
  })
  .transform((s) => new Date(s).toISOString());

export const BookingCreate = z.strictObject({
  resource: Id,
  member: Id.optional().describe('Admins book for anyone; members only for themselves'),
  fromDateTime: Instant,
  untilDateTime: Instant,
  notes: optText(2000),
  applyMemberRules: z
    .boolean()
    .optional()
    .describe(
      "Admins: hold the booking to the booking window and the per-member limits, as the member's own booking would be (default false: admins are exempt)",
    ),
});
export const BookingUpdate = z.object({
  fromDateTime: Instant.optional(),
  untilDateTime: Instant.optional(),
  state: BookingState.optional(),
  notes: optText(2000),
  lockVersion: LockVersion,
});
export const BookingRecord = z.object({
  id: Id,
  account: Id,
  resource: Id,
  member: Id,
  fromDateTime: Timestamp,
  untilDateTime: Timestamp,
  state: z.string(),
  charged: z.boolean(),
  notes: z.string().nullable(),
  ...Stamps,
});
export type BookingRecord = z.infer<typeof BookingRecord>;

/** The booking rule that refused a create or change: `data.rule` of the 409/422 error body. */
export const BookingRule = z.enum([
  'overlappingBooking',
  'outsideOpeningHours',
  'holiday',
  'outsideBookingWindow',
  'notAlignedToSlots',
  'dailyLimit',
  'weeklyLimit',
  'notBookable',
  'invalidRange',
  'unknownMember',
  'unknownResource',
  'bookingStarted',
  'lockedIn',
]);
export type BookingRule = z.infer<typeof BookingRule>;
export const BookingRefusal = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string().describe('The rule in words, e.g. "Bookings must lie within the opening hours"'),
  data: z
    .object({ rule: BookingRule })
    .catchall(z.unknown())
    .describe(
      "rule names the rule that refused; the rule's own fields follow (overlappingBooking: the booking id, overlappingMember, overlappingFrom, overlappingUntil; holiday: holidayTitle, holidayFrom, holidayUntil; outsideBookingWindow: bookingWindowMinHours, bookingWindowMaxDays; notAlignedToSlots: slotMinutes; dailyLimit/weeklyLimit: the limit in minutes and bookedMinutes)",
    ),
});
