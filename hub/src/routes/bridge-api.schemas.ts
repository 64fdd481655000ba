import { KeyType, StopType } from '@makerspace/shared';
import { z } from 'zod';

/*
 * Fabman's HTTP bridge API (resources/http-bridge.ts), as the existing DIY bridges speak it.
 * Bridges send fields of their own besides these (firmware versions, diagnostics,
 * `previousSession`): unknown fields are ignored, known ones are checked. Bodies come as JSON or
 * form-encoded with nested fields (`currentSession[id]=12`, `keys[0][token]=...`), where every
 * value is a string: the fields below take numbers also as decimal strings.
 */

const wholeNumber = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .trim()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number),
]);
/** `null`, and in forms an empty value or the word null, mean "none". */
const none = z.enum(['', 'null']).transform(() => null);
const optionalWhole = z.union([wholeNumber, none]).nullable().optional();

// A bridge without a config (or that forgot it) sends null or 0.
const configVersion = optionalWhole;

export const HeartbeatBody = z
  .looseObject({ configVersion, heartbeatInterval: optionalWhole })
  .nullable()
  .optional()
  .transform((b) => b ?? {});

// Card readers send hex in either case; member keys are stored upper-case.
const BridgeKey = z.looseObject({
  type: KeyType,
  token: z
    .string()
    .regex(/^[0-9a-fA-F]{1,64}$/, 'must be hex')
    .transform((t) => t.toUpperCase()),
});

/** A session id as bridges send it: a number or a string; 0 (or nothing) means no session. */
const SessionId = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().trim().max(64), z.null()])
  .optional()
  .transform((id) =>
    id === undefined || id === null || id === 0 || id === '' || id === '0' ? null : String(id),
  );

const CurrentSession = z
  .looseObject({ id: SessionId })
  .nullable()
  .optional()
  .transform((s) => (s?.id ? { id: s.id } : null));

export const AccessBody = z
  .looseObject({
    keys: z.array(BridgeKey).min(1).max(10).optional(),
    emailAddress: z.string().min(1).max(200).optional(),
    member: z
      .union([
        z.number().int().positive(),
        z
          .string()
          .trim()
          .regex(/^[1-9]\d{0,15}$/, 'must be a member id')
          .transform(Number),
      ])
      .optional(),
    configVersion,
    currentSession: CurrentSession,
  })
  .refine((b) => [b.keys, b.emailAddress, b.member].filter((v) => v !== undefined).length === 1, {
    message: 'Give exactly one of keys, emailAddress and member',
  });

const Price = z.union([
  z.number().nonnegative().max(1_000_000),
  z
    .string()
    .trim()
    .regex(/^\d{1,7}(\.\d+)?$/, 'must be an amount such as 12.50'),
]);

const SessionReport = z.looseObject({
  id: SessionId,
  idleDurationSeconds: optionalWhole,
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  charge: z
    .looseObject({ price: Price, description: z.string().max(200).nullable().optional() })
    .nullable()
    .optional(),
});

export const StopBody = z.looseObject({
  stopType: StopType.optional().default('normal'),
  currentSession: SessionReport.nullable().optional(),
});

export const UpdateBody = z.looseObject({
  session: SessionReport.nullable().optional(),
  // Some bridges name it as in /stop.
  currentSession: SessionReport.nullable().optional(),
});
