import { z } from 'zod';
import { Id } from './common.js';

/** What a space asks of a stranger before they become an active member (docs/DECISIONS.md, "Sign-up"). */
export const SignUpSettingsUpdate = z.strictObject({
  enabled: z.boolean().describe('Strangers may sign up at this space (off by default)'),
  packages: z
    .array(Id)
    .max(50)
    .describe('The packages a stranger may choose; at least one while sign-up is on'),
  requireTraining: Id.nullable()
    .optional()
    .describe('A training course the member must have before activation (null: none)'),
  requireKeyCard: z.boolean().optional().describe('A key card must be assigned before activation'),
  requireFirstPayment: z
    .boolean()
    .optional()
    .describe('A completed payment must be recorded before activation'),
});
export type SignUpSettingsUpdate = z.infer<typeof SignUpSettingsUpdate>;

export const HouseRulesRecord = z.object({
  space: Id,
  version: z.number().int().describe('0 while the space has no house rules yet'),
  houseRules: z.string().describe('Sanitized rich text (HTML subset)'),
  waiver: z.string().describe('Sanitized rich text (HTML subset)'),
  createdAt: z.string().nullable(),
});
export type HouseRulesRecord = z.infer<typeof HouseRulesRecord>;

export const HouseRulesUpdate = z.strictObject({
  houseRules: z.string().max(100_000),
  waiver: z.string().max(100_000),
});

export const SignUpSettingsRecord = z.object({
  space: Id,
  enabled: z.boolean(),
  packages: z.array(Id),
  requireTraining: Id.nullable(),
  requireKeyCard: z.boolean(),
  requireFirstPayment: z.boolean(),
  updatedAt: z.string().nullable(),
  houseRules: HouseRulesRecord,
});
export type SignUpSettingsRecord = z.infer<typeof SignUpSettingsRecord>;

/** What the public join page reads of a space open to sign-up. */
export const SignUpOffer = z.object({
  space: z.object({ id: Id, name: z.string() }),
  packages: z.array(
    z.object({
      id: Id,
      name: z.string(),
      description: z.string().nullable(),
      setupFee: z.string(),
      recurringFee: z.string(),
      recurringFeePeriod: z.string(),
    }),
  ),
  houseRules: HouseRulesRecord,
});
export type SignUpOffer = z.infer<typeof SignUpOffer>;

export const SignUpSpaces = z.array(z.object({ id: Id, name: z.string() }));

export const SignUpCreate = z.strictObject({
  space: Id.optional().describe('The space to join (default: the only space open to sign-up)'),
  firstName: z.string().trim().min(1, 'give your first name').max(100),
  lastName: z.string().trim().min(1, 'give your last name').max(100),
  emailAddress: z.email().max(254),
  package: Id,
  acceptedVersion: z
    .number()
    .int()
    .min(1)
    .describe('The version of the house rules and waiver the person read and accepted'),
  website: z
    .string()
    .max(500)
    .optional()
    .describe('Leave empty: a field people do not see (a filled one marks a bot and the sign-up is dropped)'),
});
export type SignUpCreate = z.infer<typeof SignUpCreate>;

export const SignUpCreated = z.object({
  status: z.literal('pending'),
  confirmationMailed: z.boolean().describe('A confirmation link went out by e-mail'),
});

export const SignUpConfirm = z.strictObject({ token: z.string().min(1).max(200) });
export const SignUpConfirmed = z.object({
  emailAddress: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
});
export const SignUpLinkRequest = z.strictObject({ emailAddress: z.email().max(254) });

export const SignUpStatus = z.enum(['pending', 'approved', 'rejected']);

export const SignUpChecklist = z.object({
  emailConfirmed: z.boolean(),
  houseRulesAccepted: z.boolean(),
  training: z.boolean().nullable().describe('null: the space asks for no training'),
  keyCard: z.boolean().nullable().describe('null: the space asks for no key card'),
  firstPayment: z.boolean().nullable().describe('null: the space asks for no first payment'),
});
export type SignUpChecklist = z.infer<typeof SignUpChecklist>;

export const SignUpRecord = z.object({
  id: Id,
  account: Id,
  space: Id,
  member: Id,
  firstName: z.string(),
  lastName: z.string(),
  emailAddress: z.string().nullable(),
  package: z.object({ id: Id, name: z.string() }).nullable(),
  status: SignUpStatus,
  emailConfirmedAt: z.string().nullable(),
  emailConfirmedBy: z.enum(['link', 'admin']).nullable(),
  acceptedVersion: z.number().int().nullable(),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  rejectReason: z.string().nullable(),
  checklist: SignUpChecklist,
  /** The checklist items still open (approval waits for them). */
  missing: z.array(z.string()),
});
export type SignUpRecord = z.infer<typeof SignUpRecord>;

export const SignUpReject = z.strictObject({ reason: z.string().max(2000).nullable().optional() });

export const HouseRulesAcceptanceRecord = z.object({
  member: Id,
  firstName: z.string(),
  lastName: z.string(),
  emailAddress: z.string().nullable(),
  version: z.number().int(),
  acceptedAt: z.string(),
  via: z.enum(['signUp', 'app']),
});

/** The caller's house rules: the current version and whether they accepted it. */
export const UserHouseRules = HouseRulesRecord.extend({ accepted: z.boolean() });
export const UserHouseRulesAccept = z.strictObject({ version: z.number().int().min(1) });
