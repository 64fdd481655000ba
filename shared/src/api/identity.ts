import { z } from 'zod';
import { MemberPrivileges } from '../enums.js';
import { DateString, Id, LockVersion, Metadata, Money, Stamps } from './common.js';

const text = (max: number) => z.string().max(max);
const optText = (max: number) => text(max).nullable().optional();

/** Member fields a client may write (api-fields.md, member). */
export const memberWritable = {
  space: Id.optional(),
  memberNumber: optText(50),
  firstName: text(100),
  lastName: text(100).optional(),
  emailAddress: z.email().max(254).nullable().optional(),
  state: z.enum(['active', 'locked']).optional(),
  dateOfBirth: DateString.nullable().optional(),
  gender: z.enum(['male', 'female', 'other']).nullable().optional(),
  company: optText(200),
  phone: optText(50),
  address: optText(200),
  address2: optText(200),
  city: optText(100),
  zip: optText(20),
  countryCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'expected an ISO 3166 country code')
    .nullable()
    .optional(),
  region: optText(100),
  notes: optText(20_000),
  taxExempt: z.boolean().optional(),
  hasBillingAddress: z.boolean().optional(),
  billingFirstName: optText(100),
  billingLastName: optText(100),
  billingCompany: optText(200),
  billingAddress: optText(200),
  billingAddress2: optText(200),
  billingCity: optText(100),
  billingZip: optText(20),
  billingCountryCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .nullable()
    .optional(),
  billingRegion: optText(100),
  billingInvoiceText: optText(2000),
  requireUpfrontPayment: z.boolean().optional(),
  upfrontMinimumBalance: Money.nullable().optional(),
  metadata: Metadata(4096).nullable().optional(),
  allowLogin: z.boolean().optional(),
  language: optText(10),
};

/** POST /members: unknown fields are refused (400). */
export const MemberCreate = z.strictObject(memberWritable);
/** PUT /members/{id}: unknown and read-only fields are ignored; lockVersion is required. */
export const MemberUpdate = z.object({
  ...z.object(memberWritable).partial().shape,
  lockVersion: LockVersion,
});

export const MemberRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  memberNumber: z.string().nullable(),
  firstName: z.string(),
  lastName: z.string(),
  emailAddress: z.string().nullable(),
  state: z
    .enum(['active', 'locked', 'pending'])
    .describe('pending: signed up and waiting for the space (no access, no charges)'),
  dateOfBirth: z.string().nullable(),
  gender: z.string().nullable(),
  company: z.string().nullable(),
  phone: z.string().nullable(),
  address: z.string().nullable(),
  address2: z.string().nullable(),
  city: z.string().nullable(),
  zip: z.string().nullable(),
  countryCode: z.string().nullable(),
  region: z.string().nullable(),
  notes: z.string().nullable(),
  taxExempt: z.boolean(),
  hasBillingAddress: z.boolean(),
  billingFirstName: z.string().nullable(),
  billingLastName: z.string().nullable(),
  billingCompany: z.string().nullable(),
  billingAddress: z.string().nullable(),
  billingAddress2: z.string().nullable(),
  billingCity: z.string().nullable(),
  billingZip: z.string().nullable(),
  billingCountryCode: z.string().nullable(),
  billingRegion: z.string().nullable(),
  billingInvoiceText: z.string().nullable(),
  requireUpfrontPayment: z.boolean(),
  upfrontMinimumBalance: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  allowLogin: z.boolean(),
  language: z.string().nullable(),
  superuser: z.boolean(),
  ...Stamps,
  _embedded: z.record(z.string(), z.unknown()).optional(),
});
export type MemberRecord = z.infer<typeof MemberRecord>;

/** /user/me: the caller's member record without state and superuser, plus `members` (Fabman's user shape). */
export const UserMe = MemberRecord.omit({ state: true, superuser: true }).extend({
  members: z.array(MemberRecord.omit({ state: true, superuser: true })),
  privileges: MemberPrivileges.describe(
    "The caller's role in the account: the web app offers the admin pages to admins and owners (the API decides)",
  ),
});

export const PrivilegesRecord = z.object({ privileges: MemberPrivileges });

export const ApiKeyCreate = z.strictObject({
  member: Id.optional().describe('The member the key acts as (default: the caller)'),
  label: z.string().max(200).nullable().optional(),
});
export const ApiKeyUpdate = z.object({
  label: z.string().max(200).nullable().optional(),
  lockVersion: LockVersion,
});
export const ApiKeyRecord = z.object({
  id: Id,
  account: Id,
  member: Id,
  label: z.string().nullable(),
  ...Stamps,
});
export const ApiKeyToken = z.object({ token: z.string() });

export const AccountRecord = z.object({
  id: Id,
  name: z.string(),
  locale: z.string(),
  trialEndDate: z.string().nullable(),
  billingEmailAddress: z.string().nullable(),
  billingCompany: z.string().nullable(),
  inviteMembers: z.boolean(),
  ...Stamps,
});
/** PUT /accounts/{id}: owners and admins; read-only fields (trialEndDate, stamps) are ignored. */
export const AccountUpdate = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  locale: z.string().min(2).max(20).optional(),
  billingEmailAddress: z.email().max(254).nullable().optional(),
  billingCompany: z.string().max(200).nullable().optional(),
  inviteMembers: z.boolean().optional(),
  lockVersion: LockVersion,
});
/** GET /accounts/{id}/payment-info: how the account pays (a self-hosted hub bills nobody: null). */
export const AccountPaymentInfo = z.object({
  id: Id,
  paymentMethod: z.record(z.string(), z.unknown()).nullable(),
  lockVersion: z.number().int(),
});
export type UserMe = z.infer<typeof UserMe>;
