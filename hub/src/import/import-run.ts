import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { HubContext } from '../context.js';
import { updateRow } from '../db/collection-rows.js';
import { type Db, isUniqueViolation } from '../db/crud.js';
import { rowById } from '../db/records.js';
import { HttpError } from '../errors.js';
import type { Caller } from '../kernel/caller.js';
import type { ApiSource } from './api-source.js';
import { type ImportedId, type ImportKind, importedIds, saveImportedId } from './import-ids.repository.js';
import { type ImportSummary, type KindSummary, order } from './import-summary.js';

/**
 * How an import writes what it reads from another server (api-catalogue.ts, api-members.ts):
 * through the areas' own rules, as the caller (an owner). Each record is written in its own transaction together with its entry in the id map
 * (import_ids), so a run stopped at any point is carried on by the next; a record whose
 * fingerprint (a hash of what was written) is unchanged is left alone, so a second run over
 * the same data writes nothing.
 */

export interface ImportTarget {
  /** The hub's context (database, clock, secret box, events); `charges` is not used. */
  ctx: HubContext;
  /** Who writes: an owner of the account the records go to. */
  caller: Caller;
}

export type Body = Record<string, unknown>;

/** Stable JSON of a body (keys sorted), hashed: what was written from a record. */
export function fingerprint(body: unknown): string {
  const stable = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(stable)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, stable((v as Body)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(stable(body)) ?? '')
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The fields of a record that a create body of `schema` has, parsed by it. An optional field the
 * hub refuses (a phone number too long, a country that is no ISO code) is left out and told to
 * `onLeftOut`, so the record still comes in; a required one, or one of `overrides` (references
 * already translated), makes the whole record a Skip naming it.
 */
export function bodyOf<S extends z.ZodObject>(
  schema: S,
  record: Body,
  overrides: Body = {},
  drop: string[] = [],
  onLeftOut?: (field: string, message: string) => void,
): z.infer<S> {
  const picked: Body = {};
  for (const key of Object.keys(schema.shape)) {
    if (drop.includes(key)) continue;
    if (key in overrides) picked[key] = overrides[key];
    else if (record[key] !== undefined) picked[key] = record[key];
  }
  for (const [key, value] of Object.entries(overrides)) if (!(key in picked)) picked[key] = value;
  for (;;) {
    const parsed = schema.safeParse(picked);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    const field = String(first.path[0] ?? '');
    const optional =
      field !== '' &&
      !(field in overrides) &&
      field in picked &&
      (schema.shape[field] as z.ZodType).safeParse(undefined).success;
    if (!optional || !onLeftOut)
      throw new Skip(`invalid ${first.path.join('.') || 'record'}: ${first.message}`);
    onLeftOut(field, first.message);
    delete picked[field];
  }
}

/** A record left out, with the reason printed in the table. */
export class Skip extends Error {}

export const idOf = (record: Body): string => String(record.id);

/** One run of an import: the id map, the counts, and how each record is written. */
export class ImportRun {
  private readonly summaries = new Map<KindSummary['kind'], KindSummary>();
  private readonly maps = new Map<ImportKind, Map<string, ImportedId>>();
  private placeholders = 0;
  /** The record being made (put), for the fields left out of it. */
  private current: { kind: KindSummary['kind']; oldId: string } | null = null;
  private readonly started = performance.now();

  constructor(
    readonly source: ApiSource,
    readonly target: ImportTarget,
    readonly options: { dryRun: boolean; onProgress?: (kind: string, done: number) => void },
  ) {
    for (const kind of order) {
      this.summaries.set(kind, {
        kind,
        read: 0,
        created: 0,
        updated: 0,
        unchanged: 0,
        skipped: new Map(),
        leftOut: new Map(),
      });
    }
  }

  get db(): Db {
    return this.target.ctx.db;
  }

  get caller(): Caller {
    return this.target.caller;
  }

  now(): string {
    return this.target.ctx.clock.now().toISOString();
  }

  summary(kind: KindSummary['kind']): KindSummary {
    return this.summaries.get(kind) as KindSummary;
  }

  skip(kind: KindSummary['kind'], oldId: string, reason: string): void {
    const s = this.summary(kind);
    const entry = s.skipped.get(reason) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < 3) entry.examples.push(oldId);
    s.skipped.set(reason, entry);
  }

  async map(kind: ImportKind): Promise<Map<string, ImportedId>> {
    let map = this.maps.get(kind);
    if (!map) {
      map = await importedIds(this.db, this.caller.accountId, this.source.base, kind);
      this.maps.set(kind, map);
    }
    return map;
  }

  /** The new id of a record imported earlier (or, in a dry run, that would be), else undefined. */
  async newId(kind: ImportKind, oldId: unknown): Promise<number | undefined> {
    if (oldId === null || oldId === undefined) return undefined;
    return (await this.map(kind)).get(String(oldId))?.newId;
  }

  /** Whether a record here is what some record of the source became. */
  async isImported(kind: ImportKind, newId: number): Promise<boolean> {
    for (const entry of (await this.map(kind)).values()) if (entry.newId === newId) return true;
    return false;
  }

  /** A reference that must have been imported: its new id, else a Skip naming it. */
  async ref(kind: ImportKind, oldId: unknown, field: string): Promise<number> {
    const id = await this.newId(kind, oldId);
    if (id === undefined) throw new Skip(`${field}: names a ${kind} that was not imported`);
    return id;
  }

  /** Like ref, for an optional field: null stays null. */
  async optionalRef(kind: ImportKind, oldId: unknown, field: string): Promise<number | null> {
    return oldId === null || oldId === undefined ? null : this.ref(kind, oldId, field);
  }

  /**
   * Writes one record: created when not in the id map (or when the record it became was deleted
   * here since), updated when what would be written changed, else left alone. The write and its
   * map entry commit together. Answers the new id (a placeholder in a dry run).
   */
  async put(
    kind: ImportKind,
    oldId: string,
    make: () => Promise<Body>,
    ops: {
      create: (trx: Db, body: Body) => Promise<number>;
      /** Updates the record; false when it no longer exists here. */
      update: (trx: Db, id: number, body: Body) => Promise<boolean>;
      /** An existing record here to take over when nothing is mapped (a member by e-mail address). */
      match?: (body: Body) => Promise<number | undefined>;
    },
  ): Promise<number | undefined> {
    const s = this.summary(kind);
    s.read++;
    this.options.onProgress?.(kind, s.read);
    let body: Body;
    try {
      this.current = { kind, oldId };
      body = await make();
    } catch (err) {
      if (err instanceof Skip) {
        this.skip(kind, oldId, err.message);
        return undefined;
      }
      throw err;
    }
    const print = fingerprint(body);
    const map = await this.map(kind);
    const known = map.get(oldId);
    if (known && known.fingerprint === print) {
      s.unchanged++;
      return known.newId;
    }
    const matched = known ? undefined : await ops.match?.(body);
    if (this.options.dryRun) {
      if (known || matched !== undefined) s.updated++;
      else s.created++;
      // A stand-in id (above any real one) that passes the create bodies' checks.
      const newId = known?.newId ?? matched ?? 2_000_000_000 + ++this.placeholders;
      map.set(oldId, { newId, fingerprint: print });
      return newId;
    }
    try {
      const result = await this.target.ctx.events.transaction(async (trx) => {
        let id = known?.newId ?? matched;
        let created = false;
        if (id === undefined || !(await ops.update(trx, id, body))) {
          id = await ops.create(trx, body);
          created = true;
        }
        await saveImportedId(
          trx,
          {
            account: this.caller.accountId,
            source: this.source.base,
            kind,
            oldId,
            newId: id,
            fingerprint: print,
          },
          this.now(),
        );
        return { id, created };
      });
      if (result.created) s.created++;
      else s.updated++;
      map.set(oldId, { newId: result.id, fingerprint: print });
      return result.id;
    } catch (err) {
      if (err instanceof HttpError || err instanceof Skip) {
        this.skip(kind, oldId, err.message.replace(/\d+/g, 'N'));
        return undefined;
      }
      if (isUniqueViolation(err)) {
        this.skip(kind, oldId, 'another record here has the same e-mail address, card or name');
        return undefined;
      }
      throw err;
    }
  }

  /** bodyOf for the record being made: optional fields the hub refuses are left out and counted. */
  body<S extends z.ZodObject>(
    schema: S,
    record: Body,
    overrides: Body = {},
    drop: string[] = [],
  ): z.infer<S> {
    const current = this.current;
    return bodyOf(schema, record, overrides, drop, (field, message) => {
      if (!current) return;
      const s = this.summary(current.kind);
      const why = `${field}: ${message}`;
      const entry = s.leftOut.get(why) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < 3) entry.examples.push(current.oldId);
      s.leftOut.set(why, entry);
    });
  }

  /** Updates a row under its current lockVersion; false when it is gone. */
  async updateColumns(
    trx: Db,
    table:
      | 'spaces'
      | 'members'
      | 'resource_types'
      | 'resources'
      | 'training_courses'
      | 'packages'
      | 'package_permissions'
      | 'package_credits'
      | 'member_trainings'
      | 'member_packages'
      | 'bookings'
      | 'holidays',
    id: number,
    columns: (row: never) => Promise<Body> | Body,
  ): Promise<boolean> {
    const row = await rowById(trx, table, id);
    if (!row) return false;
    const values = await columns(row as never);
    await updateRow(trx, table, id, (row as { lockVersion: number }).lockVersion, values, {
      at: this.now(),
      by: this.caller.memberId,
    });
    return true;
  }

  /** The counts so far, with the source's requests and waits. */
  result(): ImportSummary {
    return {
      source: this.source.base,
      dryRun: this.options.dryRun,
      kinds: order.map((k) => this.summary(k)),
      requests: this.source.stats.requests,
      waits: this.source.stats.waits,
      seconds: (performance.now() - this.started) / 1000,
    };
  }
}
