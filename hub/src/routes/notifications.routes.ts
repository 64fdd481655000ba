import {
  NotificationOutbox,
  NotificationSettingsRecord,
  NotificationSettingsUpdate,
  NotificationState,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { onMember } from './on-member.js';
import { MemberParams, pathId } from '../http/params.js';
import { adminRoute, memberRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import {
  changeNotificationSettings,
  notificationOutbox,
  notificationSettings,
  retryNotification,
} from '../notifications/notifications.js';

const kindsNote =
  'Kinds: invoiceIssued, paymentReceived, paymentFailed, balanceLow, bookingMade, bookingChanged, bookingCancelled, bookingReminder (off unless turned on), packageEnding, trainingExpiring, cardLost; admins and owners also bridgeOffline, webhookFailing, memberPaymentFailed. See docs/NOTIFICATIONS.md.';

/** A member's mail notification settings and the admins' view of the mail outbox (docs/NOTIFICATIONS.md). */
export function notificationsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/members/:memberId/notification-settings',
      {
        tags: ['members'],
        summary: 'Get a member’s notification settings',
        description: `Which mails the member receives (true: on). Members read their own, admins any of their account. ${kindsNote}`,
        params: MemberParams,
        response: { 200: NotificationSettingsRecord },
      },
      onMember(ctx.db, (member) => notificationSettings(ctx.db, member)),
    );

    memberRoute(
      app,
      'put',
      '/members/:memberId/notification-settings',
      {
        tags: ['members'],
        summary: 'Change a member’s notification settings',
        description: `Turns the kinds named on or off; the others keep their setting. Members change their own, admins any of their account. ${kindsNote}`,
        errors: {
          422: 'An admin kind for a member who is not an admin or owner (`data.<kind>: adminsOnly`).',
        },
        example: { bookingReminder: true, balanceLow: false },
        params: MemberParams,
        body: NotificationSettingsUpdate,
        response: { 200: NotificationSettingsRecord },
      },
      onMember(ctx.db, (member, request) =>
        changeNotificationSettings(ctx.db, member, request.body, ctx.clock.now().toISOString()),
      ),
    );

    adminRoute(
      app,
      'get',
      '/notification-outbox',
      {
        tags: ['notifications'],
        summary: 'The mail outbox',
        description:
          'Whether mail is configured (HUB_SMTP_URL; without it nothing is sent and mails wait), how many mails wait (`queued`, also those waiting for a retry) or were given up (`failed`), and the newest mails of the account with their state, attempts, next attempt and last error.',
        querystring: z.object({
          state: NotificationState.optional().describe('Only mails in this state'),
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(500)
            .default(50)
            .describe('How many of the newest (default 50)'),
        }),
        response: { 200: NotificationOutbox },
      },
      async (request, caller) =>
        notificationOutbox(ctx.db, caller.accountId, {
          mailConfigured: ctx.mailer !== null,
          limit: request.query.limit,
          state: request.query.state,
        }),
    );

    adminRoute(
      app,
      'post',
      '/notification-outbox/:notificationId/retry',
      {
        tags: ['notifications'],
        summary: 'Send a mail of the outbox again now',
        description:
          'A queued mail waiting for its next attempt, or a failed one (given up), is due at once; the worker sends it on its next pass (`retry: scheduled`).',
        errors: { 404: 'No queued or failed mail with this id in the account.' },
        params: z.object({ notificationId: pathId }),
        response: { 200: z.object({ retry: z.literal('scheduled') }) },
      },
      async (request, caller) => {
        await retryNotification(
          ctx.db,
          caller.accountId,
          request.params.notificationId,
          ctx.clock.now().toISOString(),
        );
        ctx.events.committed();
        return { retry: 'scheduled' as const };
      },
    );
  };
}
