import { sql } from 'kysely';
import {
  allWhere,
  type Db,
  firstWhere,
  qualified,
  selectWhereWithMemberName,
  selectWhereWithResourceName,
  updateWhere,
} from '../db/crud.js';
import type { DialectName } from '../db/database.js';

/**
 * The notification tables' queries (notifications, notification_settings), and the reads the
 * periodic notifications make across the areas (bookings, member packages, trainings, bridges,
 * webhooks), as the reports area reads figures: queries only. Time stamps are ISO strings the
 * caller takes from its clock; transactions are the caller's.
 */

export interface NewNotification {
  account: number;
  member: number;
  kind: string;
  params: Record<string, unknown>;
  dedupeKey?: string | null;
  createdAt: string;
}

/** Queues a mail; false when its dedupe key was queued before (nothing is written then). */
export async function insertNotification(db: Db, n: NewNotification): Promise<boolean> {
  const result = await db
    .insertInto('notifications')
    .values({
      account: n.account,
      member: n.member,
      kind: n.kind,
      params: JSON.stringify(n.params),
      dedupeKey: n.dedupeKey ?? null,
      state: 'queued',
      attempts: 0,
      nextAttemptAt: n.createdAt,
      createdAt: n.createdAt,
    })
    .onConflict((oc) => oc.column('dedupeKey').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** A member's stored choices (JSON), undefined when they never chose. */
export async function storedKinds(db: Db, memberId: number): Promise<string | undefined> {
  return (await firstWhere(db, 'notification_settings', { member: memberId }, ['kinds']))?.kinds;
}

export async function writeKinds(db: Db, member: { id: number; account: number }, kinds: string, at: string) {
  await db
    .insertInto('notification_settings')
    .values({ member: member.id, account: member.account, kinds, updatedAt: at })
    .onConflict((oc) => oc.column('member').doUpdateSet({ kinds, updatedAt: at }))
    .execute();
}

/** Who a mail goes to, and the space's name and language. */
export function recipientOf(db: Db, memberId: number) {
  return db
    .selectFrom('members as m')
    .innerJoin('spaces as s', 's.id', 'm.space')
    .select([
      ...qualified('m', ['id', 'account', 'firstName', 'lastName', 'emailAddress', 'language', 'privileges']),
      's.name as spaceName',
      's.locale as spaceLocale',
      's.timezone',
    ])
    .where('m.id', '=', memberId)
    .executeTakeFirst();
}

/** The account's admins and owners who have an e-mail address. */
export async function adminsOf(db: Db, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('members')
    .select('id')
    .where('account', '=', accountId)
    .where('privileges', 'in', ['admin', 'owner'])
    .where('emailAddress', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

// ---- the queue --------------------------------------------------------------------------------

/**
 * Leases up to `limit` due queued mails until `lease` and answers their ids. PostgreSQL: the
 * candidates are locked FOR UPDATE SKIP LOCKED in the same statement, so two hubs never lease
 * the same mail (a row leased by a commit meanwhile is re-checked when locked and dropped).
 * SQLite has one writer: the statement runs alone.
 */
export async function leaseDue(
  db: Db,
  dialect: DialectName,
  at: string,
  lease: string,
  limit: number,
): Promise<number[]> {
  const lock = dialect === 'postgres' ? sql` for update skip locked` : sql``;
  const rows = await sql<{ id: number }>`
    update "notifications" set "leaseUntil" = ${lease}
    where "id" in (
      select "id" from "notifications"
      where "state" = 'queued' and "nextAttemptAt" <= ${at}
        and ("leaseUntil" is null or "leaseUntil" < ${at})
      order by "nextAttemptAt", "id" limit ${limit}${lock}
    )
    and "state" = 'queued' and ("leaseUntil" is null or "leaseUntil" < ${at})
    returning "id"`.execute(db);
  return rows.rows.map((r) => Number(r.id));
}

export function notificationById(db: Db, id: number) {
  return firstWhere(db, 'notifications', { id });
}

export async function markSent(db: Db, id: number, attempts: number, subject: string, at: string) {
  await updateWhere(
    db,
    'notifications',
    { id },
    { state: 'sent', attempts, subject, sentAt: at, nextAttemptAt: null, leaseUntil: null, lastError: null },
  );
}

/** A failed attempt: tried again at `nextAttemptAt`, or given up (`failed`) when that is null. */
export async function markAttemptFailed(
  db: Db,
  id: number,
  attempts: number,
  error: string,
  subject: string | null,
  nextAttemptAt: string | null,
) {
  await updateWhere(
    db,
    'notifications',
    { id },
    {
      state: nextAttemptAt ? 'queued' : 'failed',
      attempts,
      lastError: error.slice(0, 1000),
      subject,
      nextAttemptAt,
      leaseUntil: null,
    },
  );
}

/** The lease goes (the hub is closing): the mail waits for the next pass. */
export async function releaseLease(db: Db, id: number) {
  await updateWhere(db, 'notifications', { id }, { leaseUntil: null });
}

/** An admin's retry: a queued or failed mail of the account is due now. False when there is none. */
export async function makeDue(db: Db, accountId: number, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({ state: 'queued', nextAttemptAt: at, leaseUntil: null })
    .where('id', '=', id)
    .where('account', '=', accountId)
    .where('state', 'in', ['queued', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Forgets sent and failed mails created before `before`; those with a dedupe key (periodic
 * reminders) only before `keysBefore`, so a reminder is still remembered while it could recur.
 */
export async function pruneOutbox(db: Db, before: string, keysBefore: string) {
  await db
    .deleteFrom('notifications')
    .where('state', 'in', ['sent', 'failed'])
    .where((eb) =>
      eb.or([
        eb.and([eb('dedupeKey', 'is', null), eb('createdAt', '<', before)]),
        eb('createdAt', '<', keysBefore),
      ]),
    )
    .execute();
}

/** What the outbox shows of a mail (with its recipient's name). */
const outboxColumns = [
  'id',
  'member',
  'kind',
  'subject',
  'state',
  'attempts',
  'nextAttemptAt',
  'lastError',
  'sentAt',
  'createdAt',
] as const;

/** The account's outbox, newest first, with the recipients' names. */
export function outboxOf(db: Db, accountId: number, limit: number, state?: string) {
  return selectWhereWithMemberName(
    db,
    'notifications',
    { account: accountId, state },
    { columns: outboxColumns, orderBy: ['id desc'], limit },
  );
}

export async function outboxCounts(db: Db, accountId: number): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('notifications')
    .select(['state', (eb) => eb.fn.countAll<number>().as('count')])
    .where('account', '=', accountId)
    .where('state', 'in', ['queued', 'failed'])
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.count)]));
}

// ---- what the periodic notifications look for ------------------------------------------------

/** Bookings (not cancelled) starting in [from, until), with their resource's name. */
export function bookingsStarting(db: Db, from: string, until: string) {
  return selectWhereWithResourceName(
    db,
    'bookings',
    { state: { '<>': 'cancelled' }, fromDateTime: { '>=': from, '<': until } },
    { columns: ['id', 'account', 'member', 'resource', 'fromDateTime', 'untilDateTime', 'createdAt'] },
  );
}

/** What a member holds until a last day: packages (named) and trainings (of a titled course). */
const holdings = {
  member_packages: { parent: 'packages', via: 'package', name: 'name' },
  member_trainings: { parent: 'training_courses', via: 'trainingCourse', name: 'title' },
} as const;

/** A member's package or training that ends, with its package's name or course's title. */
export interface Ending {
  id: number;
  account: number;
  member: number;
  untilDate: string;
  name: string;
  /** The time zone of the member's space. */
  timezone: string | null;
}

/** Member packages or trainings whose last day (untilDate) is in [fromDate, untilDate]. */
export async function endingBetween(
  db: Db,
  table: keyof typeof holdings,
  fromDate: string,
  untilDate: string,
): Promise<Ending[]> {
  const { parent, via, name } = holdings[table];
  const { rows } = await sql<Ending>`
    select e."id", e."account", e."member", e."untilDate", p.${sql.ref(name)} as "name", s."timezone"
    from ${sql.table(table)} as e
    inner join ${sql.table(parent)} as p on p."id" = e.${sql.ref(via)}
    inner join "members" as m on m."id" = e."member"
    left join "spaces" as s on s."id" = m."space"
    where e."untilDate" between ${fromDate} and ${untilDate}`.execute(db);
  return rows;
}

/** Bridges offline and last seen before `seenBefore`, with their resource's name. */
export function bridgesOfflineSince(db: Db, seenBefore: string) {
  return selectWhereWithResourceName(
    db,
    'bridges',
    { offline: 1, lastSeenAt: { '<': seenBefore } },
    { columns: ['resource', 'account', 'lastSeenAt'] },
  );
}

/** Webhooks in state `failing`. */
export function failingWebhooks(db: Db) {
  return allWhere(db, 'webhooks', { state: 'failing' }, [
    'id',
    'account',
    'label',
    'failingSince',
    'consecutiveFailures',
  ]);
}

/** The id of the member's newest completed payment (0: none): a low balance is told once per payment. */
export async function lastPaymentOf(db: Db, memberId: number): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('member', '=', memberId)
    .where('state', '=', 'completed')
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

export function paymentById(db: Db, id: number) {
  return db
    .selectFrom('payments')
    .select(['id', 'account', 'member', 'total', 'date', 'method', 'state'])
    .where('id', '=', id)
    .executeTakeFirst();
}
