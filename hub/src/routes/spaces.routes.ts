import {
  HolidayCreate,
  HolidayRecord,
  HolidayUpdate,
  SpaceCreate,
  SpaceRecord,
  SpaceUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, findIn, ofAccount, registerCollection } from '../http/collection.js';
import { publicOrigin } from '../http/server-options.js';
import { isAdmin } from '../kernel/caller.js';
import type { HubServices } from '../http/services.js';
import {
  createHoliday,
  createSpace,
  holidayChanges,
  holidayRecord,
  refuseSpaceDelete,
  spaceColumns,
  spaceEmbeds,
  spaceRecord,
  upcomingOnly,
  visibleSpaces,
} from '../spaces/spaces.repository.js';
import { registerSpaceExtras, spaceAccess } from './space-extras.routes.js';
import { billingSettings, registerSpaceBilling } from './space-billing.routes.js';
import { registerInvoiceLogo } from './invoice-logo.routes.js';
import { pagedNote } from '../http/openapi-doc.js';

const stampOf = (at: string, caller: { memberId: number }) => ({ at, by: caller.memberId });

/** spec 4.9: spaces, with their opening hours, upcoming holidays and billing settings as embeds. */
export const spaces = collection({
  table: 'spaces',
  record: SpaceRecord,
  embeds: ['openingHours', 'holidays', 'billingSettings'],
  visible: visibleSpaces,
  records: (ctx, rows, caller, embed, request) => {
    // Absolute calendar links: HUB_PUBLIC_URL, else the request's own origin.
    const origin = request ? publicOrigin(ctx.publicUrl, request) : (ctx.publicUrl ?? '');
    return Promise.all(
      rows.map(async (row) => {
        const record = spaceRecord(row, caller, ctx.tokens, origin);
        if (embed.length === 0) return record;
        // Billing settings are the admins'; a plain member's embed leaves them out.
        const asked = isAdmin(caller) ? embed : embed.filter((e) => e !== 'billingSettings');
        return { ...record, _embedded: await spaceEmbeds(ctx.db, row, asked, ctx.clock.now()) };
      }),
    );
  },
  list: { search: 'name' },
  create: {
    body: SpaceCreate,
    insert: (trx, { caller, body, at }) => createSpace(trx, caller, body, at),
  },
  update: { body: SpaceUpdate, columns: (body) => spaceColumns(body) },
  remove: {
    note: 'Only an empty space: move or delete its resources and members first (409 otherwise).',
    before: (trx, row) => refuseSpaceDelete(trx, row),
  },
  docs: {
    list: {
      summary: 'List spaces',
      description: `\`q\` searches the name; \`embed\` adds \`openingHours\`, \`holidays\`, \`billingSettings\`. ${pagedNote}`,
    },
    get: {
      summary: 'Get a space',
      description: '`embed` adds `openingHours`, `holidays`, `billingSettings`.',
    },
    create: {
      summary: 'Add a space',
      description: 'A place of the makerspace with its time zone, opening hours, holidays and booking rules.',
      example: {
        name: 'Workshop Vienna',
        timezone: 'Europe/Vienna',
        locale: 'de-AT',
        bookingSlotsPerHour: 2,
      },
    },
    update: {
      summary: 'Change a space',
      example: { lockVersion: 5, bookingMaxMinutesPerMemberDay: 240 },
    },
    remove: {
      summary: 'Delete a space',
      description: 'Only an empty space: move or delete its resources and members first.',
      errors: { 409: 'The space still has resources or members (`data.resources`, `data.members`).' },
    },
  },
});

/** The space a nested path names, as the caller sees it (404 otherwise). */
const spaceOf = (
  ctx: HubServices,
  caller: Parameters<typeof visibleSpaces>[1],
  spaceId: number,
  db = ctx.db,
) => findIn(spaces, ctx, caller, {}, spaceId, db);

/** spec 4.9: a space's holidays (wall-clock times of the space). */
export const holidays = collection({
  table: 'holidays',
  path: '/spaces/:spaceId/holidays',
  // The spec spells the record's writes with the singular /space.
  aliases: [{ path: '/space/:spaceId/holidays', parts: ['update', 'remove'] }],
  record: HolidayRecord,
  scope: async (ctx, caller, params, db) => {
    const space = await spaceOf(ctx, caller, params.spaceId, db);
    return ofAccount(db, 'holidays', caller).where('holidays.space', '=', space.id);
  },
  toRecord: holidayRecord,
  list: {
    note: 'Upcoming holidays (`past=true` also those that ended), by start.',
    search: 'title',
    query: {
      past: z
        .boolean()
        .default(false)
        .describe('Also list holidays that have ended (default: upcoming only)'),
    },
    // "Upcoming" = not yet over on the space's wall clock.
    where: (base, query, ctx, _caller, params) =>
      query.past ? base : upcomingOnly(ctx.db, base, params.spaceId, ctx.clock.now()),
    order: [
      ['fromDateTime', 'asc'],
      ['id', 'asc'],
    ],
  },
  create: {
    body: HolidayCreate,
    insert: async (trx, { ctx, caller, body, params, at }) =>
      createHoliday(trx, await spaceOf(ctx, caller, params.spaceId, trx), body, stampOf(at, caller)),
  },
  update: { body: HolidayUpdate, columns: (body, row) => holidayChanges(row, body) },
  remove: {},
  docs: {
    list: {
      summary: 'List a space’s holidays',
      description: `Upcoming holidays (\`past=true\` also those that ended), by start. ${pagedNote}`,
    },
    get: {
      summary: 'Get a holiday',
      description: 'One holiday of the space.',
    },
    create: {
      summary: 'Add a holiday',
      description:
        'The space is closed from `fromDateTime` until `untilDateTime` (wall-clock times of the space).',
      errors: { 422: '`untilDateTime` is not after `fromDateTime`.' },
      example: { title: 'Christmas', fromDateTime: '2026-12-24T00:00', untilDateTime: '2026-12-27T00:00' },
    },
    update: {
      summary: 'Change a holiday',
      errors: { 422: '`untilDateTime` is not after `fromDateTime`.' },
      example: {
        lockVersion: 1,
        title: 'Christmas',
        fromDateTime: '2026-12-24T00:00',
        untilDateTime: '2026-12-27T00:00',
      },
    },
    remove: {
      summary: 'Delete a holiday',
    },
  },
});

export function spacesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    for (const c of [spaces, holidays, billingSettings]) registerCollection(app, ctx, c as never);
    const access = spaceAccess(ctx, spaces);
    registerSpaceExtras(app, ctx, access);
    registerSpaceBilling(app, ctx, access);
    registerInvoiceLogo(app, ctx, access);
  };
}
