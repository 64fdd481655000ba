import type { Db } from '../db/crud.js';
import { existingIds } from './shadow.repository.js';

/**
 * How the other server's member and resource ids become ours. The moving-in importer keeps a
 * map of the ids it gave the records it copied; until it is wired here, `sameIds` takes an id
 * as ours when our account has a record with that id (right for a hub that started as a copy).
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
      found = (await existingIds(db, kind === 'member' ? 'members' : 'resources', account, [id])).length > 0;
      known[kind].set(id, found);
    }
    return found ? id : null;
  };
  return { member: (id) => look('member', id), resource: (id) => look('resource', id) };
}

/**
 * The id translation for a source: the importer's map when one is wired in (`importedIds`),
 * else the ids as they are.
 */
export type IdTranslationFor = (db: Db, account: number, source: string) => IdTranslation;

export const defaultIdTranslation: IdTranslationFor = (db, account) => sameIds(db, account);
