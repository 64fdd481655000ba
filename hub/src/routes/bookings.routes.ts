import { BookingCreate, BookingRecord, BookingState, BookingUpdate, Id } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { collection, collectionRoutes } from '../http/collection.js';
import { orderParam } from '../http/list.js';
import type { HubServices } from '../http/services.js';
import {
  bookingChanges,
  bookingFilters,
  bookingRecord,
  createBooking,
  emitBooking,
  visibleBookings,
} from '../spaces/bookings.service.js';
import { pagedNote } from '../http/openapi-doc.js';

const When = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO 8601 date or timestamp')
  .transform((s) => new Date(s).toISOString());

const refusals =
  "A booking the rules refuse answers 409 (overlappingBooking) or 422, with the error body's data a BookingRefusal with `rule` naming the rule: overlappingBooking, outsideOpeningHours, holiday, outsideBookingWindow, notAlignedToSlots, dailyLimit, weeklyLimit, notBookable, invalidRange, unknownMember, unknownResource, bookingStarted, lockedIn (admins are exempt from the booking window and the per-member limits unless they send applyMemberRules: true).";

/** spec 4.10: bookings of resources. Members book and cancel their own; admins any of the account. */
export const bookings = collection({
  table: 'bookings',
  record: BookingRecord,
  visible: visibleBookings,
  toRecord: bookingRecord,
  list: {
    equals: { resource: Id.optional(), member: Id.optional(), state: BookingState.optional() },
    query: {
      space: Id.optional(),
      fromDateTime: When.optional().describe('Only bookings that end after this time'),
      untilDateTime: When.optional().describe('Only bookings that start before this time'),
      from: When.optional().describe('Alias of fromDateTime'),
      until: When.optional().describe('Alias of untilDateTime'),
      order: orderParam,
    },
    where: (base, query) => bookingFilters(base, query),
    order: (query) => [
      ['fromDateTime', query.order as 'asc' | 'desc'],
      ['id', query.order as 'asc' | 'desc'],
    ],
  },
  create: {
    body: BookingCreate,
    rule: 'member',
    note: refusals,
    insert: (trx, { ctx, caller, body, at }) => createBooking(trx, ctx, caller, body, at),
  },
  update: {
    body: BookingUpdate,
    rule: 'member',
    note: refusals,
    columns: (body, row, { ctx, caller, trx }) => bookingChanges(trx, ctx, caller, row, body),
    written: (trx, _before, after) => emitBooking(trx, 'booking_updated', after),
  },
  // Members cancel (PUT state: cancelled); deleting is for admins. The event carries the booking as it was.
  remove: { before: (trx, row) => emitBooking(trx, 'booking_deleted', row) },
  docs: {
    list: {
      summary: 'List bookings',
      description: `Filters: \`resource\`, \`member\`, \`space\`, \`state\`, and a time range (\`fromDateTime\`/\`untilDateTime\`). Members see their own bookings. ${pagedNote}`,
    },
    get: {
      summary: 'Get a booking',
      description: 'Members read their own bookings; admins any of their account.',
    },
    create: {
      summary: 'Book a resource',
      description:
        'Members book for themselves, admins for any member. The booking must fit the space’s slots, booking window, opening hours, holidays and the per-member limits.',
      errors: {
        403: 'A member tried to book for another member.',
        409: 'The resource is already booked at this time (`data.overlappingBooking`).',
        422: 'The time is outside the rules: slots, booking window, opening hours, a holiday, the member’s limit, or the resource cannot be booked.',
      },
      errorExamples: {
        409: { message: 'The resource is already booked at this time', data: { overlappingBooking: 311 } },
        422: { message: 'Bookings must lie within the opening hours', data: { outsideOpeningHours: true } },
      },
      example: {
        resource: 7,
        fromDateTime: '2026-11-28T10:00:00Z',
        untilDateTime: '2026-11-28T12:00:00Z',
        notes: 'Acrylic signs',
      },
    },
    update: {
      summary: 'Change or cancel a booking',
      description:
        'Members may only cancel their own future bookings (`state: cancelled`), not within the space’s lock-in hours; admins change times within the rules.',
      errors: {
        403: 'A member tried something other than cancelling their own booking.',
        409: 'The new time clashes with another booking.',
        422: 'The booking has started, the lock-in time has begun, or the new time is outside the rules.',
      },
      example: { lockVersion: 1, state: 'cancelled' },
    },
    remove: {
      summary: 'Delete a booking',
      description:
        'Removes the booking (members cancel with PUT `state: cancelled` instead). Sends `booking_deleted`.',
    },
  },
});

export const bookingsRoutes = (ctx: HubServices): FastifyPluginAsyncZod => collectionRoutes(ctx, bookings);
