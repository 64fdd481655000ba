import { importedIdOf, importedIds } from '../import/import-ids.repository.js';
import { type Db, existsWhere } from '../db/crud.js';

/**
 * How the other server's member and resource ids become ours: through the moving-in importer's
 * map of the ids it gave the records it copied (`importedIdTranslation`); for a source never
 * imported from, `sameIds` takes an id as ours when our account has a record with that id
 * (right for a hub that started as a copy of the other).
 */
export interface IdTranslation {
  /** Our member for the other server's member id (null: none here). */
  member(otherId: number): Promise<number | null>;
  /** Our resource for the other server's resource id (null: none here). */
  resource(otherId: number): Promise<number | null>;
}

/** Ids taken as they are, when our account has a record with the id. */
export function sameIds(db: Db, account: number): IdTranslation {
  const known = { member: new Map<number, boolean>(), resource: new Map<number, boolean>() };
  const look = async (kind: 'member' | 'resource', id: number) => {
    let found = known[kind].get(id);
    if (found === undefined) {
      found = await (kind === 'member'
        ? existsWhere(db, 'members', { account, id })
        : existsWhere(db, 'resources', { account, id }));
      known[kind].set(id, found);
    }
    return found ? id : null;
  };
  return { member: (id) => look('member', id), resource: (id) => look('resource', id) };
}

/**
 * The importer's map for `source` (its API base, as `sourceName` gives it): a member or resource
 * the import did not bring has no counterpart here (null), even when an id happens to match.
 */
export function importedIdTranslation(db: Db, account: number, source: string): IdTranslation {
  const cache = { member: new Map<number, number | null>(), resource: new Map<number, number | null>() };
  const look = async (kind: 'member' | 'resource', id: number) => {
    let ours = cache[kind].get(id);
    if (ours === undefined) {
      ours = (await importedIdOf(db, account, source, kind, id)) ?? null;
      cache[kind].set(id, ours);
    }
    return ours;
  };
  return { member: (id) => look('member', id), resource: (id) => look('resource', id) };
}

/** The id translation for a source, chosen once per run. */
export type IdTranslationFor = (db: Db, account: number, source: string) => Promise<IdTranslation>;

/** The importer's map when members were imported from `source`, else the ids as they are. */
export const defaultIdTranslation: IdTranslationFor = async (db, account, source) =>
  (await importedIds(db, account, source, 'member')).size > 0
    ? importedIdTranslation(db, account, source)
    : sameIds(db, account);
