import type { Logger } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Clock } from '../context.js';
import { insertRow } from '../db/collection-rows.js';
import { type Db, parseJson } from '../db/crud.js';
import type { EventBus } from '../db/outbox.js';
import { rowById } from '../db/records.js';
import type { MemberChangesTable } from '../db/schema.js';
import { conflict } from '../errors.js';
import { type PeriodicCheck, periodicCheck } from '../periodic.js';
import { localDate } from '../kernel/zoned-time.js';
import { type MemberRow, memberRecord, writeMemberFields } from './members.js';
import {
  markMemberChangeApplied,
  membersByIds,
  unappliedMemberChange,
  unappliedMemberChanges,
} from './members.repository.js';

/**
 * Scheduled changes of a member's data (/members/{id}/changes): member fields to write on a
 * date (space-local). The hub applies a change once its date has come, as a PUT of the member
 * would (member_updated), and keeps it with `changes` ({field: [old, new]}) as applied.
 */

export type MemberChangeRow = Selectable<MemberChangesTable>;
type Fields = Record<string, unknown>;

/** The member's record values of these fields (the record's names and shapes). */
function valuesOf(member: MemberRow | undefined, fields: Fields): Fields {
  const record = member ? (memberRecord(member) as unknown as Fields) : {};
  return Object.fromEntries(Object.keys(fields).map((f) => [f, record[f] ?? null]));
}

/**
 * Records for a page of changes: the fields to write (flat, as the client sent them), and
 * `changes` as {field: [old, new]}: what the member had when it was applied, or has now while
 * it is scheduled.
 */
export async function memberChangeRecords(db: Db, rows: MemberChangeRow[]) {
  const pending = [...new Set(rows.filter((r) => r.appliedAt === null).map((r) => r.member))];
  const members = pending.length ? await membersByIds(db, pending) : [];
  const byId = new Map(members.map((m) => [m.id, m]));
  return rows.map((row) => {
    const fields = parseJson<Fields>(row.fields) ?? {};
    const old = valuesOf(byId.get(row.member), fields);
    const changes =
      row.appliedAt !== null
        ? (parseJson<Record<string, [unknown, unknown]>>(row.changes) ?? {})
        : Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, [old[f], v]]));
    return {
      ...fields,
      id: row.id,
      account: row.account,
      member: row.member,
      date: row.date,
      state: row.appliedAt === null ? ('scheduled' as const) : ('applied' as const),
      appliedAt: row.appliedAt,
      changes,
      lockVersion: row.lockVersion,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      updatedBy: row.updatedBy,
    };
  });
}

export function createMemberChange(
  trx: Db,
  member: { id: number; account: number },
  body: { date: string } & Fields,
  stamp: { at: string; by: number | null },
): Promise<MemberChangeRow> {
  const { date, ...fields } = body;
  return insertRow(
    trx,
    'member_changes',
    { account: member.account, member: member.id, date, fields: JSON.stringify(fields) },
    stamp,
  );
}

/** The columns of a change to a scheduled change: its date, and the fields sent replace theirs. */
export function memberChangeColumns(row: MemberChangeRow, body: Fields): Fields {
  if (row.appliedAt !== null)
    throw conflict('This change was applied already and can no longer be edited', { applied: true });
  const { lockVersion: _lockVersion, date, ...fields } = body;
  const columns: Fields = {};
  if (date !== undefined) columns.date = date;
  if (Object.keys(fields).length > 0)
    columns.fields = JSON.stringify({ ...(parseJson<Fields>(row.fields) ?? {}), ...fields });
  return columns;
}

/**
 * Applies every scheduled change whose date has come in its member's space, oldest date
 * first, each in its own transaction with its member_updated event. A change that cannot be
 * applied (another member took the e-mail address meanwhile) is logged and stays scheduled.
 */
export async function applyDueMemberChanges(
  ctx: { db: Db; clock: Clock; events: EventBus; logger: Logger },
  applied: (member: MemberRow) => Promise<void>,
): Promise<number> {
  const at = ctx.clock.now();
  // Ahead of UTC by at most 14 hours: no change dated later than tomorrow (UTC) can be due.
  const horizon = new Date(at.getTime() + 86_400_000).toISOString().slice(0, 10);
  const due = await unappliedMemberChanges(ctx.db, horizon);
  let count = 0;
  for (const change of due) {
    if (change.date > localDate(at, change.timezone)) continue;
    try {
      const member = await ctx.events.transaction((trx) => applyChange(trx, change.id, at.toISOString()));
      if (member) {
        count++;
        await applied(member);
      }
    } catch (err) {
      ctx.logger.warn({ err, memberChange: change.id }, 'a scheduled member change could not be applied');
    }
  }
  return count;
}

async function applyChange(trx: Db, id: number, at: string): Promise<MemberRow | null> {
  const change = await unappliedMemberChange(trx, id);
  if (!change) return null; // applied meanwhile (another hub, or a second run)
  const member = await rowById(trx, 'members', change.member);
  if (!member) return null;
  const fields = parseJson<Fields>(change.fields) ?? {};
  const before = valuesOf(member, fields);
  const after = await writeMemberFields(trx, member, fields, { at, by: change.updatedBy });
  const now = valuesOf(after, fields);
  const changes = Object.fromEntries(Object.keys(fields).map((f) => [f, [before[f], now[f]]]));
  if (!(await markMemberChangeApplied(trx, id, at, JSON.stringify(changes))))
    throw new Error('member change applied twice');
  return after;
}

/** Applies due scheduled member changes every minute (and when asked: `check()`). */
export function watchMemberChanges(
  ctx: { db: Db; clock: Clock; events: EventBus; logger: Logger },
  applied: (member: MemberRow) => Promise<void>,
  intervalMs = 60_000,
): PeriodicCheck {
  return periodicCheck(
    async () => {
      await applyDueMemberChanges(ctx, applied);
    },
    intervalMs,
    ctx.logger,
    'applying scheduled member changes failed',
  );
}
