import { BookingCreate, BookingRecord, BookingState, BookingUpdate, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { callerOf } from '../http/auth.js';
import { orderParam, pageParams, queryPage, sendPage } from '../http/list.js';
import {
  bookingRecord,
  createBooking,
  findBooking,
  updateBooking,
  visibleBookings,
} from '../spaces/bookings.service.js';

const IdParams = z.object({ bookingId: z.coerce.number().int().positive() });
const When = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO 8601 date or timestamp')
  .transform((s) => new Date(s).toISOString());

const ListQuery = z.object({
  ...pageParams,
  resource: Id.optional(),
  member: Id.optional(),
  space: Id.optional(),
  state: BookingState.optional(),
  fromDateTime: When.optional().describe('Only bookings that end after this time'),
  untilDateTime: When.optional().describe('Only bookings that start before this time'),
  from: When.optional().describe('Alias of fromDateTime'),
  until: When.optional().describe('Alias of untilDateTime'),
  order: orderParam,
});

const refusals =
  "A booking the rules refuse answers 409 (overlappingBooking) or 422, with the error body's data a BookingRefusal with `rule` naming the rule: overlappingBooking, outsideOpeningHours, holiday, outsideBookingWindow, notAlignedToSlots, dailyLimit, weeklyLimit, notBookable, invalidRange, unknownMember, unknownResource, bookingStarted, lockedIn (admins are exempt from the booking window and the per-member limits unless they send applyMemberRules: true).";

/** spec 4.10: bookings of resources. */
export function bookingsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/bookings',
      {
        schema: {
          tags: ['bookings'],
          description: refusals,
          body: BookingCreate,
          response: { 201: BookingRecord },
        },
      },
      async (request, reply) => {
        const row = await createBooking(ctx, callerOf(request), request.body);
        return reply.code(201).send(bookingRecord(row));
      },
    );

    app.get(
      '/bookings',
      { schema: { tags: ['bookings'], querystring: ListQuery, response: { 200: z.array(BookingRecord) } } },
      async (request, reply) => {
        const q = request.query;
        let base = visibleBookings(ctx.db, callerOf(request));
        if (q.resource) base = base.where('bookings.resource', '=', q.resource);
        if (q.member) base = base.where('bookings.member', '=', q.member);
        if (q.state) base = base.where('bookings.state', '=', q.state);
        const from = q.fromDateTime ?? q.from;
        const until = q.untilDateTime ?? q.until;
        if (from) base = base.where('bookings.untilDateTime', '>', from);
        if (until) base = base.where('bookings.fromDateTime', '<', until);
        if (q.space) {
          const space = q.space;
          base = base.where('bookings.resource', 'in', (eb) =>
            eb.selectFrom('resources').select('resources.id').where('resources.space', '=', space),
          );
        }
        const page = await queryPage(base, { limit: q.limit, offset: q.offset }, (b) =>
          b.selectAll().orderBy('bookings.fromDateTime', q.order).orderBy('bookings.id', q.order),
        );
        return sendPage(request, reply, page, page.rows.map(bookingRecord), ctx.publicUrl);
      },
    );

    app.get(
      '/bookings/:bookingId',
      { schema: { tags: ['bookings'], params: IdParams, response: { 200: BookingRecord } } },
      async (request) =>
        bookingRecord(await findBooking(ctx.db, callerOf(request), request.params.bookingId)),
    );

    app.put(
      '/bookings/:bookingId',
      {
        schema: {
          tags: ['bookings'],
          params: IdParams,
          description: refusals,
          body: BookingUpdate,
          response: { 200: BookingRecord },
        },
      },
      async (request) =>
        bookingRecord(await updateBooking(ctx, callerOf(request), request.params.bookingId, request.body)),
    );
  };
}
