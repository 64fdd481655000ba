import type { ResourceLogType } from '@makerspace/shared';
import type { SelectQueryBuilder } from 'kysely';
import { type Db, selectFirstWhere } from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { badRequest } from '../errors.js';

type LogQuery = SelectQueryBuilder<Database, 'resource_logs', object>;

/** The list's filters beside `resource` and `member` (which compare their column). */
export interface LogFilters {
  type?: unknown;
  status?: unknown;
  from?: unknown;
  until?: unknown;
}

/**
 * `type` (any of), `status=active` (sessions still running), and the period `from`..`until`: the
 * logs that overlap it. A log starts at `createdAt`; a session (an allowed log) lasts until
 * `stoppedAt` or, while it runs, until now. So a session switched on at 17:00 and off at 23:00
 * is among the logs of "last night from 20:00", though it began before.
 */
export function logFilters(base: LogQuery, query: LogFilters): LogQuery {
  const types = (query.type ?? []) as ResourceLogType[];
  let q = types.length ? base.where('type', 'in', types) : base;
  if (query.status === 'active') q = q.where('stoppedAt', 'is', null).where('type', '=', 'allowed');
  const from = query.from === undefined ? undefined : iso(query.from as string);
  const until = query.until === undefined ? undefined : iso(query.until as string);
  if (from !== undefined && until !== undefined && until <= from)
    throw badRequest('until: must be later than from', { field: 'until' });
  if (until !== undefined) q = q.where('createdAt', '<', until);
  if (from !== undefined)
    q = q.where((eb) =>
      eb.or([
        eb('createdAt', '>=', from),
        eb.and([
          eb('type', '=', 'allowed'),
          eb.or([eb('stoppedAt', 'is', null), eb('stoppedAt', '>=', from)]),
        ]),
      ]),
    );
  return q;
}

/** Stored times are ISO strings in UTC with milliseconds; a query's time is compared in that form. */
const iso = (time: string) => new Date(time).toISOString();

/** The id of the resource's newest allowed log. */
export async function newestAllowedLog(db: Db, resource: number): Promise<number | undefined> {
  const newest = await selectFirstWhere(
    db,
    'resource_logs',
    { resource, type: 'allowed' },
    { columns: ['id'], orderBy: ['id desc'], limit: 1 },
  );
  return newest?.id;
}

/** The members a page of logs names, as the logs show them (the identity area's table). */
export function memberRefs(db: Db, ids: readonly number[]) {
  return db
    .selectFrom('members')
    .select(['id', 'memberNumber', 'firstName', 'lastName', 'state'])
    .where('id', 'in', [...ids])
    .execute();
}

/** The account's taps refused as unknown cards since `since`, newest first, at most `limit`. */
export function unknownKeyLogs(db: Db, account: number, since: string, limit: number) {
  return db
    .selectFrom('resource_logs')
    .select(['resource', 'createdAt', 'metadata'])
    .where('account', '=', account)
    .where('type', '=', 'denied')
    .where('reason', '=', 'unknownKey')
    .where('createdAt', '>=', since)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
