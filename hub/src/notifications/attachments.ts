import type * as Ical from 'ical-generator';
import { invoicePdf, invoicePdfFileName } from '../billing/invoice-pdf.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/crud.js';
import { rowById } from '../db/records.js';
import type { NotificationKind } from './kinds.js';
import { onFirstUse } from '../kernel/on-first-use.js';

const icalLibrary = onFirstUse<typeof Ical>('ical-generator');

/** A file sent with a mail. */
export interface MailAttachment {
  filename: string;
  content: Buffer | string;
  contentType: string;
}

/**
 * A booking as a calendar invitation (.ics): REQUEST when made or changed (the same UID, a
 * higher SEQUENCE, so the calendar updates its entry), CANCEL when cancelled. Times in UTC; the
 * calendar shows them in the reader's zone.
 */
export function bookingCalendar(
  kind: NotificationKind,
  p: { bookingId: number; resourceName: string; from: string; until: string; spaceName: string },
  host: string,
  stamp: Date,
): MailAttachment {
  const cancelled = kind === 'bookingCancelled';
  const { default: ical, ICalCalendarMethod, ICalEventStatus } = icalLibrary();
  const cal = ical({
    name: p.spaceName,
    prodId: { company: 'makerspace-hub', product: 'booking' },
    method: cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  cal.createEvent({
    id: `booking-${p.bookingId}@${host}`,
    start: new Date(p.from),
    end: new Date(p.until),
    summary: `${p.resourceName} (${p.spaceName})`,
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    // Each mail about the booking supersedes the one before.
    sequence: Math.floor(stamp.getTime() / 1000) % 2_000_000_000,
    stamp,
  });
  return {
    filename: 'booking.ics',
    content: cal.toString(),
    contentType: `text/calendar; charset=utf-8; method=${cancelled ? 'CANCEL' : 'REQUEST'}`,
  };
}

/**
 * The invoice as a PDF to attach to the "invoice issued" mail: the document the invoice route
 * serves (billing/invoice-pdf.ts), made and stored on first use, so the mail and every later
 * download are the same bytes.
 */
export async function invoiceAttachment(
  db: Db,
  invoiceId: number,
  number: string,
  clock: Clock,
): Promise<MailAttachment | null> {
  // An invoice that is gone (its account deleted) is mailed without its document.
  if (!(await rowById(db, 'invoices', invoiceId))) return null;
  return {
    filename: invoicePdfFileName(number),
    content: await invoicePdf(db, invoiceId, { clock }),
    contentType: 'application/pdf',
  };
}
