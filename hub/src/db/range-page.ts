import { type SelectQueryBuilder, sql } from 'kysely';

/**
 * One page of a report's read: an account's rows at instants in [startsAt, endsAt) (ISO, UTC:
 * stored timestamps compare as text on every dialect), the `limit` first after a row id.
 */
export interface RangePage {
  account: number;
  startsAt: string;
  endsAt: string;
  afterId: number;
  limit: number;
}

/** Narrows a read of `table` to one page, in id order, `at` naming the column of the instant. */
export function inRangePage<DB, TB extends keyof DB & string, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: TB,
  at: string,
  page: RangePage,
): SelectQueryBuilder<DB, TB, O> {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return query
    .where(column('account'), '=', page.account)
    .where(column(at), '>=', page.startsAt)
    .where(column(at), '<', page.endsAt)
    .where(column('id'), '>', page.afterId)
    .orderBy(column('id'))
    .limit(page.limit);
}
