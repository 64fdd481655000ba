/** The calls of the spaces and bookings pages: public /api/v1 operations, through the app's one `call`. */
import type {
  BookingRecord,
  BookingRule,
  HolidayRecord,
  MemberRecord,
  OpeningHour,
  SpaceRecord,
} from '@makerspace/shared';
import { call } from '../api';

export type { BookingRecord, BookingRule, HolidayRecord, OpeningHour, SpaceRecord };

export type HolidayInput = { title: string | null; fromDateTime: string; untilDateTime: string };

const holidaysPath = (space: number) => `/spaces/${space}/holidays`;

export const spacesApi = {
  spaces: () => call<SpaceRecord[]>('GET', '/spaces?limit=100&embed=openingHours'),
  space: (id: number) => call<SpaceRecord>('GET', `/spaces/${id}?embed=openingHours`),
  setTimezone: (space: SpaceRecord, timezone: string) =>
    call<SpaceRecord>('PUT', `/spaces/${space.id}`, { timezone, lockVersion: space.lockVersion }),
  setOpeningHours: (space: number, hours: OpeningHour[]) =>
    call<OpeningHour[]>('PUT', `/spaces/${space}/opening-hours`, hours),
  holidays: (space: number, past: boolean) =>
    call<HolidayRecord[]>('GET', `${holidaysPath(space)}?limit=1000${past ? '&past=true' : ''}`),
  createHoliday: (space: number, body: HolidayInput) =>
    call<HolidayRecord>('POST', holidaysPath(space), body),
  updateHoliday: (holiday: HolidayRecord, body: HolidayInput) =>
    call<HolidayRecord>('PUT', `${holidaysPath(holiday.space)}/${holiday.id}`, {
      ...body,
      lockVersion: holiday.lockVersion,
    }),
  deleteHoliday: (holiday: HolidayRecord) =>
    call<void>('DELETE', `${holidaysPath(holiday.space)}/${holiday.id}`),

  /** Confirmed bookings of a resource that overlap [from, until). */
  bookings: (resource: number, from: Date, until: Date) =>
    call<BookingRecord[]>(
      'GET',
      `/bookings?resource=${resource}&state=confirmed&limit=1000&from=${encodeURIComponent(from.toISOString())}&until=${encodeURIComponent(until.toISOString())}`,
    ),
  createBooking: (body: {
    resource: number;
    member: number;
    fromDateTime: string;
    untilDateTime: string;
    applyMemberRules: boolean;
  }) => call<BookingRecord>('POST', '/bookings', body),
  cancelBooking: (booking: BookingRecord) =>
    call<BookingRecord>('PUT', `/bookings/${booking.id}`, {
      state: 'cancelled',
      lockVersion: booking.lockVersion,
    }),
  member: (id: number) => call<MemberRecord>('GET', `/members/${id}`),
};
