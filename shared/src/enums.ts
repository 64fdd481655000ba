import { z } from 'zod';

/** Resource log types (api-fields.md, resource log). */
export const resourceLogTypes = [
  'allowed',
  'denied',
  'pairing',
  'keyAssigned',
  'checkIn',
  'reboot',
  'offline',
  'resourceDisabled',
  'resourceEnabled',
  'authorizationCheck',
] as const;
export const ResourceLogType = z.enum(resourceLogTypes);
export type ResourceLogType = z.infer<typeof ResourceLogType>;

/** How a session ended. */
export const stopTypes = [
  'normal',
  'automatic',
  'offline',
  'takeover',
  'filter',
  'permission',
  'race',
  // A machine's interlock (lid, extraction, safety mat) opened during the session.
  'interlock',
] as const;
export const StopType = z.enum(stopTypes);
export type StopType = z.infer<typeof StopType>;

/** Reasons of a denied access decision, named as Fabman names them. */
export const denyReasons = [
  'booking',
  'exclusiveResource',
  'holiday',
  'inactive',
  'keyInactive',
  'memberInactive',
  'noPackage',
  'noPermission',
  'openingHours',
  'prepaidBalance',
  'requiresBooking',
  'timeTable',
  'unknownKey',
  'unknownMember',
  'tooManyAttempts',
  'thirdPartyError',
  'notCheckedIn',
  'wrongCode',
  // A switch-on code that was valid once (an old QR sticker); it does not count as a wrong guess.
  'staleCode',
  // An entrance of a space that holds as many people as its occupancyLimit allows.
  'occupancyFull',
  // An interlock of the machine (lid, extraction, safety mat) is open.
  'interlock',
] as const;
export const DenyReason = z.enum(denyReasons);
export type DenyReason = z.infer<typeof DenyReason>;

export const keyTypes = ['em4102', 'nfca', 'nfcb', 'nfcf', 'iso15693', 'hid'] as const;
export const KeyType = z.enum(keyTypes);
export type KeyType = z.infer<typeof KeyType>;

export const controlTypes = ['machine', 'door', 'pos', 'other'] as const;
export const ControlType = z.enum(controlTypes);
export type ControlType = z.infer<typeof ControlType>;

export const memberPrivileges = ['member', 'admin', 'owner'] as const;
export const MemberPrivileges = z.enum(memberPrivileges);
export type MemberPrivileges = z.infer<typeof MemberPrivileges>;
