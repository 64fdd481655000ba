import {
  CheckInCreate,
  CheckInQuery,
  CheckInRecord,
  DoorLockRecord,
  PresenceQuery,
  PresenceRecord,
  PresenceSettingsRecord,
  PresenceSettingsUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerOf } from '../http/auth.js';
import { sendPage } from '../http/list.js';
import { MemberParams, pathId, ResourceParams } from '../http/params.js';
import { adminRoute, memberRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { createdRoute } from '../http/route-kinds.js';
import { onMember, onResourceInAccount } from './on-member.js';
import { checkInCaller, checkOut, getCheckIn, listCheckIns, presenceOf } from '../presence/check-ins.js';
import { lockDoorNow } from '../presence/door-windows.js';
import { putShowPresence, showPresenceOf } from '../presence/presence.repository.js';

const CheckInParams = z.object({ checkInId: pathId });
const presenceNote =
  'A card tap at an entrance door (`entrance: true`) checks the member in, the next tap checks them out; the kiosk page does the same with a button. Everyone still in is checked out at the space’s closing time (local midnight when it has no opening hours). See docs/DECISIONS.md, “Presence and door modes”.';

/** Check-ins at entrances and the kiosk, who is in, and a held door's "lock now". */
export function presenceRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/check-ins',
      {
        schema: {
          tags: ['presence'],
          summary: 'List check-ins (who was in the space, and when)',
          description: `Newest first. Admins see every check-in of the account, members their own. Filters: \`state\` (in, out), \`space\`, \`member\` (admins), \`from\` and \`until\` (the check-in time). A page at a time (\`limit\`, \`offset\`; \`X-Total-Count\`). ${presenceNote}`,
          querystring: CheckInQuery,
          response: { 200: z.array(CheckInRecord) },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const { records, page } = await listCheckIns(ctx, caller, request.query);
        return sendPage(request, reply, page, records, ctx.publicUrl);
      },
    );
    memberRoute(
      app,
      'get',
      '/check-ins/:checkInId',
      {
        tags: ['presence'],
        summary: 'Get a check-in',
        description: 'Admins any of the account, members their own.',
        params: CheckInParams,
        response: { 200: CheckInRecord },
      },
      (request, caller) => getCheckIn(ctx, caller, request.params.checkInId),
    );
    createdRoute(
      app,
      'post',
      '/check-ins',
      {
        tags: ['presence'],
        summary: 'Check in (the kiosk)',
        description: `The caller checks in to the space (their own when \`space\` is left out), for spaces without an entrance reader. Answers 201 with the check-in. ${presenceNote}`,
        body: CheckInCreate,
        response: { 201: CheckInRecord },
        errors: {
          403: 'The caller’s membership is not active (`data.reason`: `memberInactive`), or the space is full (`data.reason`: `occupancyFull`; admins and owners pass).',
          409: 'The caller is checked in already (`data.alreadyCheckedIn`: the check-in’s id).',
        },
        example: {},
      },
      (request, caller) => checkInCaller(ctx, caller, request.body.space),
    );
    memberRoute(
      app,
      'post',
      '/check-ins/:checkInId/check-out',
      {
        tags: ['presence'],
        summary: 'Check out',
        description:
          'Ends the stay now: members their own (the kiosk), admins anyone’s of the account. Answers the check-in, now `out`.',
        params: CheckInParams,
        response: { 200: CheckInRecord },
        errors: { 409: 'Checked out already (`data.alreadyCheckedOut`).' },
      },
      (request, caller) => checkOut(ctx, caller, request.params.checkInId),
    );
    memberRoute(
      app,
      'get',
      '/presence',
      {
        tags: ['presence'],
        summary: 'Who is in the space now',
        description:
          'How many members are checked in, the space’s `occupancyLimit`, by name those who chose to be shown (`showPresence` in their presence settings), and the caller’s own check-in. Any member of the space.',
        querystring: PresenceQuery,
        response: { 200: PresenceRecord },
      },
      (request, caller) => presenceOf(ctx, caller, request.query.space),
    );
    memberRoute(
      app,
      'get',
      '/members/:memberId/presence-settings',
      {
        tags: ['members'],
        summary: 'Get a member’s presence settings',
        description:
          'Whether the member is shown by name while checked in. Members their own, admins any of the account.',
        params: MemberParams,
        response: { 200: PresenceSettingsRecord },
      },
      onMember(ctx.db, async (member) => ({ showPresence: await showPresenceOf(ctx.db, member.id) })),
    );
    memberRoute(
      app,
      'put',
      '/members/:memberId/presence-settings',
      {
        tags: ['members'],
        summary: 'Change a member’s presence settings',
        description:
          '`showPresence: true` shows the member by name to the space’s members and on the admins’ dashboard while checked in (off by default). Members change their own, admins any of the account.',
        params: MemberParams,
        body: PresenceSettingsUpdate,
        response: { 200: PresenceSettingsRecord },
        example: { showPresence: true },
      },
      onMember(ctx.db, async (member, request) => {
        await putShowPresence(
          ctx.db,
          member.account,
          member.id,
          request.body.showPresence,
          ctx.clock.now().toISOString(),
        );
        return { showPresence: request.body.showPresence };
      }),
    );
    adminRoute(
      app,
      'post',
      '/resources/:resourceId/lock-now',
      {
        tags: ['resources'],
        summary: 'Lock a held door now',
        description:
          'A door held unlocked by its `unlockMode` (openingHours, firstIn) locks now and stays locked until its window would have ended; the next window opens as usual. Its agent relocks at once and logs it. Answers `lockedUntil` (null: the door was not held open).',
        params: ResourceParams,
        response: { 200: DoorLockRecord },
      },
      onResourceInAccount(ctx.db, async (resource, _request, caller) => {
        const until = await lockDoorNow(ctx, resource, caller.memberId);
        return { lockedUntil: until ? until.toISOString() : null };
      }),
    );
  };
}
