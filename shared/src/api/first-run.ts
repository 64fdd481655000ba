import { z } from 'zod';
import { Id, Timestamp } from './common.js';
import { OpeningHour } from './spaces.js';

/**
 * `GET /hub-info` (public, no credentials): what the sign-in page and the admin console need to
 * know of the hub's own set-up before anyone signs in. Says nothing of members or records.
 */
export const HubInfo = z.object({
  mailConfigured: z
    .boolean()
    .describe(
      'HUB_SMTP_URL is set: sign-in links and invitations are mailed. Without it, an admin hands links over and members sign in with a password',
    ),
  publicUrlSet: z
    .boolean()
    .describe(
      'HUB_PUBLIC_URL is set. Without it, QR stickers, pairing commands and mailed links point at localhost, which phones cannot reach',
    ),
  signInLinkMinutes: z.number().int().describe('How long a sign-in or password-reset link stays valid'),
  invitationDays: z
    .number()
    .int()
    .describe('How long an invitation link stays valid (HUB_INVITATION_DAYS, 7 by default)'),
});
export type HubInfo = z.infer<typeof HubInfo>;

/** `GET /setup-progress` (admins): the first-run checklist's facts about the caller's account. */
export const SetupProgress = z.object({
  publicUrlSet: z.boolean().describe('HUB_PUBLIC_URL is set'),
  mailConfigured: z.boolean().describe('HUB_SMTP_URL is set'),
  spaces: z
    .array(
      z.object({
        id: Id,
        name: z.string(),
        timezone: z.string(),
        timezoneSet: z.boolean().describe('The time zone is no longer the default, UTC'),
        openingHours: z
          .number()
          .int()
          .describe('How many opening-hour ranges the space has (0: open at all times)'),
      }),
    )
    .describe('The account’s active spaces'),
  packages: z.number().int().describe('Active packages'),
  resources: z.number().int().describe('Active doors and machines'),
  pairedBridges: z.number().int().describe('Resources with a bridge (paired, or created by API)'),
  invitedMembers: z.number().int().describe('Members invited to sign in (invited or accepted)'),
});
export type SetupProgress = z.infer<typeof SetupProgress>;

export const AvailabilityQuery = z.object({
  from: Timestamp.describe('Start of the window (ISO 8601)'),
  until: Timestamp.describe('End of the window (ISO 8601); at most 31 days after from'),
});

/**
 * `GET /resources/{id}/availability` (any member who sees the resource): the free/busy view a
 * member books from, in the space's time zone. Busy times name nobody but the caller.
 */
export const ResourceAvailability = z.object({
  resource: Id,
  timezone: z.string().describe('The space’s time zone: opening hours and the booking form are in it'),
  openingHours: z.array(OpeningHour).describe('The space’s week; empty: open at all times'),
  busy: z
    .array(
      z.object({
        fromDateTime: Timestamp,
        untilDateTime: Timestamp,
        mine: z.boolean().describe('The caller’s own booking'),
      }),
    )
    .describe('Confirmed bookings in the window, oldest first'),
});
export type ResourceAvailability = z.infer<typeof ResourceAvailability>;
