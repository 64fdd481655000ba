import type { Db } from '../db/crud.js';

/**
 * The map of imported records (table import_ids): which record of another server (`source`, its
 * API base URL) became which record here, per account and kind. The API import keeps it so a
 * second run updates instead of duplicating and a run stopped halfway carries on.
 */

/** What an imported record is; `oldId` is the other server's id (a member's id for its key card). */
export type ImportKind =
  | 'space'
  | 'holiday'
  | 'resourceType'
  | 'resource'
  | 'trainingCourse'
  | 'package'
  | 'packagePermission'
  | 'packageCredit'
  | 'member'
  | 'memberKey'
  | 'memberTraining'
  | 'memberPackage'
  | 'booking';

export interface ImportedId {
  newId: number;
  fingerprint: string;
}

/**
 * The id here of a record imported from `source` (the API base URL given to
 * `makerspace-hub import api --url`, without a trailing slash), or undefined when that record
 * was not imported into this account. For code that must translate the other server's ids
 * (members, resources, ...) into this hub's, e.g. while both run side by side:
 *
 *     const memberId = await importedIdOf(db, accountId, 'https://fabman.io/api/v1', 'member', 4711);
 */
export async function importedIdOf(
  db: Db,
  account: number,
  source: string,
  kind: ImportKind,
  oldId: string | number,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('import_ids')
    .select('newId')
    .where('account', '=', account)
    .where('source', '=', source)
    .where('kind', '=', kind)
    .where('oldId', '=', String(oldId))
    .executeTakeFirst();
  return row?.newId;
}

/** Every imported record of one kind from `source`: old id -> new id and fingerprint. */
export async function importedIds(
  db: Db,
  account: number,
  source: string,
  kind: ImportKind,
): Promise<Map<string, ImportedId>> {
  const rows = await db
    .selectFrom('import_ids')
    .select(['oldId', 'newId', 'fingerprint'])
    .where('account', '=', account)
    .where('source', '=', source)
    .where('kind', '=', kind)
    .execute();
  return new Map(rows.map((r) => [r.oldId, { newId: r.newId, fingerprint: r.fingerprint }]));
}

/** Records (or moves) the mapping of one record, in the transaction that wrote the record. */
export async function saveImportedId(
  db: Db,
  entry: {
    account: number;
    source: string;
    kind: ImportKind;
    oldId: string;
    newId: number;
    fingerprint: string;
  },
  at: string,
): Promise<void> {
  const updated = await db
    .updateTable('import_ids')
    .set({ newId: entry.newId, fingerprint: entry.fingerprint })
    .where('account', '=', entry.account)
    .where('source', '=', entry.source)
    .where('kind', '=', entry.kind)
    .where('oldId', '=', entry.oldId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return;
  await db
    .insertInto('import_ids')
    .values({ ...entry, createdAt: at })
    .execute();
}
