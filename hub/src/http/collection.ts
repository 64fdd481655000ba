import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Selectable, SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import { type Db, likePattern, retryOnConflict } from '../db/crud.js';
import { allRows, deleteRow, findRow, rowsWhere, updateRow } from '../db/collection-rows.js';
import type { Database } from '../db/schema.js';
import { notFound } from '../errors.js';
import { accountOf, adminOnly, type Caller } from '../kernel/caller.js';
import { findMember } from '../identity/members.js';
import { callerOf } from './auth.js';
import { embedParam, pageParams, queryPage, sendJson, sendPage } from './list.js';
import { lockedDescription, type OperationDoc, removedDescription, type WriteDoc } from './openapi-doc.js';
import { pathId } from './params.js';
import type { HubServices } from './services.js';

type Table = keyof Database & string;
export type RowOf<T extends Table> = Selectable<Database[T]>;
type Scope<T extends Table> = SelectQueryBuilder<Database, T, object>;
type Params = Record<string, number>;
type Query = Record<string, unknown>;

/** Who may write: admins and owners of the account (the default), or any member who sees the record. */
export type WriteRule = 'admin' | 'member';

/** The operations of a collection, as an alias names those it also answers. */
export type Part = 'list' | 'get' | 'create' | 'update' | 'remove';

const isWrite = (part: Part): part is 'create' | 'update' | 'remove' =>
  part === 'create' || part === 'update' || part === 'remove';

/**
 * One record collection of the API, declared once (docs/ARCHITECTURE.md): its table, how the
 * caller's view is scoped, its record, and what is special about writing it. `collectionRoutes`
 * turns it into list, get, create, update and delete with the API's conventions (`limit`,
 * `offset`, `X-Total-Count`, `Link`, `q`, `lockVersion` with 409, 404 for what the caller does
 * not see, 403 for members who may not write) and their OpenAPI entries (`docs`).
 */
export interface Collection<T extends Table, Rec = unknown> {
  table: T;
  /** The list's path, e.g. `/training-courses` or `/members/:memberId/trainings`. */
  path: string;
  /** The name of the record id in the path, e.g. `courseId`. */
  id: string;
  /** The record's name in messages and docs, e.g. `Training course`. */
  noun: string;
  /** The plural for docs, e.g. `training courses`. */
  nouns: string;
  tag: string;
  /** The response schema of one record. */
  record: z.ZodType;
  /** Path parameters before the id (a parent record), e.g. `{ memberId }`. */
  parent?: z.ZodRawShape;
  /**
   * Other spellings of `path` (the same parameters) and the operations each also answers, run by
   * the same handlers, e.g. the spec's singular `{ path: '/space/:spaceId/holidays', parts:
   * ['update', 'remove'] }`. Their docs name the main path.
   */
  aliases?: { path: string; parts: readonly Part[] }[];
  /**
   * Each operation's docs in the makerspace's words (http/openapi-doc.ts); an operation without
   * them gets a generated summary and description (`Create a training course`, ...). A write the
   * docs describe says `admins` by its rule (the default), not by its docs. An update under
   * `lockVersion` begins its description with how that works, a delete ends with its 204: theirs
   * say only what is particular (`WriteDoc`).
   */
  docs?: { [P in Part]?: P extends 'update' | 'remove' ? WriteDoc : OperationDoc };
  /**
   * The rows the caller sees, as a select from `table` (tenant scoping). May read the parent
   * from `params` and throw 404 when the caller does not see it. Reads through `db` (a
   * transaction when called from a write's hooks: SQLite has one connection).
   */
  scope(ctx: HubServices, caller: Caller, params: Params, db: Db): Scope<T> | Promise<Scope<T>>;
  /**
   * Records from rows (a page at a time, so extra reads are made once per page). `request` is
   * the HTTP request, for records with absolute links (absent when called outside a request).
   */
  records(
    ctx: HubServices,
    rows: RowOf<T>[],
    caller: Caller,
    embed: readonly string[],
    request?: FastifyRequest,
  ): Rec[] | Promise<Rec[]>;
  list?: {
    /** Query parameters beside limit, offset and q. */
    query?: z.ZodRawShape;
    /** Query parameters that select rows whose column of the same name equals them. */
    equals?: z.ZodRawShape;
    /** Applies the other filters of `query` (and `q`, when no `search` column is named) to the scoped rows (`params`: the path's, e.g. the parent). */
    where?(
      base: Scope<T>,
      query: Query,
      ctx: HubServices,
      caller: Caller,
      params: Params,
    ): Scope<T> | Promise<Scope<T>>;
    /** The column `q` searches (contains, case-insensitive); none: `q` is ignored. */
    search?: string;
    /**
     * Sort order (may follow the query, e.g. its `order`); `[['id', 'asc']]` by default. A third
     * entry `'nullsLast'` puts the column's nulls last in both dialects.
     */
    order?: Order | ((query: Query) => Order);
    /** Who may list: the default `member` shows each caller their own view. */
    rule?: WriteRule;
    /** A sentence added to the generated description in the docs (here and on the parts below). */
    note?: string;
  };
  create?: {
    /** None: the create takes no body (a record with defaults that the client then edits). */
    body?: z.ZodType;
    rule?: WriteRule;
    note?: string;
    /** Writes the record (inside a transaction that also takes its events) and answers its row. */
    insert(
      trx: Db,
      input: { ctx: HubServices; caller: Caller; body: any; params: Params; at: string },
    ): Promise<RowOf<T>>;
    /** Shapes the answer from the record and its row (e.g. a secret shown once). */
    answer?(record: any, row: RowOf<T>, ctx: HubServices): unknown;
  };
  update?: {
    body: z.ZodType;
    rule?: WriteRule;
    note?: string;
    /**
     * The columns to change from the body (lockVersion is handled here); may check the change
     * against the row and throw. Without it, the body's fields (less lockVersion) are the columns.
     */
    columns?(
      body: any,
      row: RowOf<T>,
      input: { ctx: HubServices; caller: Caller; trx: Db },
    ): Record<string, unknown> | Promise<Record<string, unknown>>;
    /** Writes the change itself instead of `columns` (e.g. a record without lockVersion, or an area function with rules of its own). */
    write?(trx: Db, row: RowOf<T>, body: any, input: { ctx: HubServices; caller: Caller }): Promise<unknown>;
    /** Shapes the answer from the record and the row before and after (e.g. a new secret shown once). */
    answer?(record: any, before: RowOf<T>, after: RowOf<T>, ctx: HubServices): unknown;
    /** Runs after the write, in its transaction (events); `body` is the request's. */
    written?(
      trx: Db,
      before: RowOf<T>,
      after: RowOf<T>,
      ctx: HubServices,
      caller: Caller,
      body: any,
    ): Promise<unknown>;
  };
  remove?: {
    rule?: WriteRule;
    note?: string;
    /** Runs before the delete, in its transaction: refuses (409) or takes dependent rows along. */
    before?(trx: Db, row: RowOf<T>, ctx: HubServices, caller: Caller): Promise<unknown>;
    /** Try again when PostgreSQL broke a deadlock with it (e.g. with a worker holding dependent rows). */
    retry?: boolean;
    /** Runs after the delete, in its transaction (events). */
    after?(trx: Db, row: RowOf<T>, ctx: HubServices, caller: Caller): Promise<unknown>;
  };
  /**
   * Runs after every committed write, before the answer: e.g. `ctx.events.accessChanged(row.account)`,
   * or a push to a bridge (awaited when it answers a promise).
   */
  committed?(ctx: HubServices, row: RowOf<T>, write: 'create' | 'update' | 'remove', caller: Caller): unknown;
  /** Query parameters of list and get that shape the records (e.g. `resolve`); `records` reads them from the request. */
  recordQuery?: z.ZodRawShape;
  /** Related records a client may ask for with `embed=` (list and get); `records` gets the names. */
  embeds?: readonly [string, ...string[]];
  /**
   * Turns a storage error of a create or update (e.g. a unique index) into the API's answer by
   * throwing it; errors it returns from are thrown as they are.
   */
  refuse?(err: unknown): void;
  /**
   * Hot paths (prepared reads, cached record texts) tried before the general ones: `list` answers
   * a page (or undefined to leave it to the general list, e.g. for embeds), `get` the record's
   * JSON text when no embed is asked for (or undefined).
   */
  hot?: {
    list?(
      ctx: HubServices,
      caller: Caller,
      query: Query & { limit: number; offset: number },
    ): Promise<{ total: number; json: string; count: number } | undefined>;
    /** A string when it can answer at once (no promise turn), a promise when it has to read. */
    get?(ctx: HubServices, caller: Caller, id: number): string | Promise<string | undefined> | undefined;
  };
}

type Order = ([string, 'asc' | 'desc'] | [string, 'asc' | 'desc', 'nullsLast'])[];

/** The rows of the caller's account (every account's for a superuser): the usual tenant scope. */
export function ofAccount<T extends Table>(db: Db, table: T, caller: Caller): Scope<T> {
  const account = accountOf(caller);
  return account === null ? allRows(db, table) : rowsWhere(db, table, 'account', account);
}

/**
 * The rows of a member's own sub-collection (`/members/:memberId/...`), once the caller sees the
 * member (404 otherwise).
 */
export function ofMember<T extends MemberTable>(table: T) {
  return async (_ctx: HubServices, caller: Caller, params: Params, db: Db): Promise<Scope<T>> => {
    const member = await findMember(db, caller, params.memberId);
    return rowsWhere(db, table, 'member', member.id);
  };
}

type MemberTable =
  | 'member_trainings'
  | 'member_packages'
  | 'member_credits'
  | 'member_changes'
  | 'member_device_changes';

/** The table, path (`/members/:memberId/<segments>`) and scope (`ofMember`) of a member's sub-collection. */
export function underMember<T extends MemberTable>(table: T, segments: string) {
  return { table, path: `/members/:memberId/${segments}`, scope: ofMember(table) };
}

/**
 * The create of a member's sub-collection by an area function that takes the member the path
 * names (404 when the caller does not see it), the body and the write's stamp.
 */
export function insertForMember<B, R>(
  insert: (
    trx: Db,
    member: { id: number; account: number },
    body: B,
    stamp: { at: string; by: number },
  ) => Promise<R>,
) {
  return async (
    trx: Db,
    { caller, body, params, at }: { caller: Caller; body: B; params: Params; at: string },
  ) => insert(trx, await findMember(trx, caller, params.memberId), body, { at, by: caller.memberId });
}

type Derived = 'path' | 'id' | 'noun' | 'nouns' | 'tag' | 'parent' | 'scope' | 'records';

/**
 * A collection as declared: what `collection` can derive may be left out. Two short forms:
 * `visible` (the rows the caller sees, from the database and the caller) for a `scope` that
 * needs neither the path nor the context, and `toRecord` (one row to its record) for `records`
 * that read nothing more.
 */
export type Declaration<T extends Table, Rec> = Omit<Collection<T, Rec>, Derived> &
  Partial<Pick<Collection<T, Rec>, Derived>> & {
    visible?(db: Db, caller: Caller): Scope<T>;
    toRecord?(row: RowOf<T>): Rec;
  };

/**
 * Declares a collection, deriving what is left out: `path` and `noun` from the table
 * (`resource_types`: `/resource-types`, `Resource type`), `id` from the noun's last word (`Training course`: `courseId`), `nouns`
 * from the noun (`resource types`) or, nested, from the parent and the path's tail (`a member's
 * trainings`), `tag` from the path's first segment, `parent` from the path's `:params` (all
 * ids), and `scope` as the caller's account's rows (`ofAccount`) unless `visible` names them.
 */
export function collection<T extends Table, Rec>(d: Declaration<T, Rec>): Collection<T, Rec> {
  const path = d.path ?? `/${d.table.replaceAll('_', '-')}`;
  const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const owner = params.at(-1)?.replace(/Id$/, '');
  const singular = d.table.replaceAll('_', ' ').replace(/s$/, '');
  const noun = d.noun ?? singular[0].toUpperCase() + singular.slice(1);
  const lastWord = noun.split(' ').at(-1) as string;
  const firstWord = noun.split(' ')[0];
  const plural = `${firstWord === firstWord.toUpperCase() ? noun : noun[0].toLowerCase() + noun.slice(1)}s`;
  const tail = path
    .split(/\/:\w+/)
    .at(-1)
    ?.split('/')
    .filter(Boolean)
    .join(' ');
  return {
    ...d,
    path,
    noun,
    id: d.id ?? `${lastWord.toLowerCase()}Id`,
    nouns: d.nouns ?? (owner ? `a ${owner}'s ${tail}` : plural),
    tag: d.tag ?? path.split('/')[1],
    ...(d.parent || params.length > 0
      ? { parent: d.parent ?? Object.fromEntries(params.map((p) => [p, pathId])) }
      : {}),
    scope:
      d.scope ??
      ((_ctx, caller, _params, db) => (d.visible ? d.visible(db, caller) : ofAccount(db, d.table, caller))),
    records: d.records ?? ((_ctx, rows) => rows.map((row) => recordFromRow(d, row))),
  };
}

function recordFromRow<T extends Table, Rec>(d: Declaration<T, Rec>, row: RowOf<T>): Rec {
  if (!d.toRecord) throw new Error(`${d.table}: declare records or toRecord`);
  return d.toRecord(row);
}

function allowed(caller: Caller, rule: WriteRule | undefined): Caller {
  return rule === 'member' ? caller : adminOnly(caller);
}

/** The record the caller sees with this id, or 404. */
export async function findIn<T extends Table>(
  c: Collection<T>,
  ctx: HubServices,
  caller: Caller,
  params: Params,
  id: number,
  db: Db = ctx.db,
): Promise<RowOf<T>> {
  const row = await findRow(await c.scope(ctx, caller, params, db), c.table, id);
  if (!row) throw notFound(c.noun);
  return row as RowOf<T>;
}

/**
 * The handler of a plain route on one record of a collection (`<path>/:<id>/...`, beside its
 * routes): it gets the row as the caller sees it (`findIn`: 404 otherwise) before the request and
 * the caller.
 */
export function onRecord<T extends Table, Request extends { params: object }, Answer>(
  c: Collection<T, any>,
  ctx: HubServices,
  handler: (row: RowOf<T>, request: Request, caller: Caller) => Answer | Promise<Answer>,
): (request: Request, caller: Caller) => Promise<Answer> {
  return async (request, caller) => {
    const params = request.params as Params;
    return handler(await findIn(c, ctx, caller, params, params[c.id]), request, caller);
  };
}

/** " Filters: `a`, `b`." for the docs (nothing for none). */
const named = (what: string, names: readonly string[]) =>
  names.length === 0 ? '' : ` ${what}: ${names.map((n) => `\`${n}\``).join(', ')}.`;

function refused<T extends Table>(c: Collection<T, any>, err: unknown): never {
  c.refuse?.(err);
  throw err;
}

async function one<T extends Table, Rec>(
  c: Collection<T, Rec>,
  ctx: HubServices,
  caller: Caller,
  row: RowOf<T>,
  embed: readonly string[] = [],
  request?: FastifyRequest,
) {
  return (await c.records(ctx, [row], caller, embed, request))[0];
}

/**
 * A collection's update of the record with this id as the caller sees it (404, 403, 409 as the
 * PUT route answers them); for plain routes that change the same record by another path.
 */
export async function updateIn<T extends Table, Rec>(
  c: Collection<T, Rec>,
  ctx: HubServices,
  request: FastifyRequest,
  params: Params,
  id: number,
  body: unknown,
): Promise<Rec> {
  if (!c.update) throw new Error(`${c.noun}: no update declared`);
  const update = c.update;
  const caller = callerOf(request);
  const before = await findIn(c, ctx, caller, params, id);
  allowed(caller, update.rule);
  const after = await ctx.events.transaction((trx) => updateWrite(c, trx, ctx, caller, before, body));
  await c.committed?.(ctx, after, 'update', caller);
  const record = await one(c, ctx, caller, after, [], request);
  return (update.answer ? update.answer(record, before, after, ctx) : record) as Rec;
}

/** The create's write in its transaction: the row inserted. */
function createWrite<T extends Table>(
  c: Collection<T>,
  trx: Db,
  input: { ctx: HubServices; caller: Caller; body: unknown; params: Params; at: string },
): Promise<RowOf<T>> {
  if (!c.create) throw new Error(`${c.noun}: no create declared`);
  return c.create.insert(trx, input);
}

/** The update's write in its transaction (lockVersion checked here): the row after it. */
async function updateWrite<T extends Table>(
  c: Collection<T, any>,
  trx: Db,
  ctx: HubServices,
  caller: Caller,
  before: RowOf<T>,
  body: unknown,
): Promise<RowOf<T>> {
  const update = c.update;
  if (!update) throw new Error(`${c.noun}: no update declared`);
  const { lockVersion, ...fields } = body as { lockVersion: number } & Record<string, unknown>;
  const rowId = (before as { id: number }).id;
  if (update.write) await update.write(trx, before, body, { ctx, caller });
  else {
    const columns = update.columns ? await update.columns(body, before, { ctx, caller, trx }) : fields;
    await updateRow(trx, c.table, rowId, lockVersion, columns, {
      at: ctx.clock.now().toISOString(),
      by: caller.memberId,
    }).catch((err) => refused(c, err));
  }
  const row = (await findRow(allRows(trx, c.table), c.table, rowId)) as RowOf<T>;
  await update.written?.(trx, before, row, ctx, caller, body);
  return row;
}

/** The delete's write in its transaction (its `before` and `after` included). */
async function removeWrite<T extends Table>(
  c: Collection<T, any>,
  trx: Db,
  ctx: HubServices,
  caller: Caller,
  row: RowOf<T>,
): Promise<void> {
  const remove = c.remove;
  if (!remove) throw new Error(`${c.noun}: no delete declared`);
  await remove.before?.(trx, row, ctx, caller);
  await deleteRow(trx, c.table, (row as { id: number }).id);
  await remove.after?.(trx, row, ctx, caller);
}

/**
 * A create, update or delete of a collection as its route makes it (the same checks: 404 for
 * what the caller does not see, 403, 409 and 422 from the area's rules), but inside a
 * transaction the caller holds, with no `committed` hook after it: access simulations run the
 * proposed write this way and roll it back.
 */
export async function writeInTransaction<T extends Table>(
  c: Collection<T, any>,
  trx: Db,
  ctx: HubServices,
  caller: Caller,
  write: { part: 'create' | 'update' | 'remove'; params: Params; id?: number; body?: unknown },
): Promise<void> {
  const { part, params, id, body } = write;
  if (part === 'create') {
    if (!c.create) throw new Error(`${c.noun}: no create declared`);
    if (c.parent) await c.scope(ctx, caller, params, trx);
    allowed(caller, c.create.rule);
    const at = ctx.clock.now().toISOString();
    await createWrite(c, trx, { ctx, caller, body, params, at }).catch((err) => refused(c, err));
    return;
  }
  const row = await findIn(c, ctx, caller, params, id as number, trx);
  if (part === 'update') {
    allowed(caller, c.update?.rule);
    await updateWrite(c, trx, ctx, caller, row, body);
  } else {
    allowed(caller, c.remove?.rule);
    await removeWrite(c, trx, ctx, caller, row);
  }
}

/** The routes of one collection (and its OpenAPI entries), then the plain routes `beside` it. */
export function collectionRoutes<T extends Table>(
  ctx: HubServices,
  c: Collection<T>,
  beside?: FastifyPluginAsyncZod,
): FastifyPluginAsyncZod {
  return async (app, options) => {
    registerCollection(app, ctx, c);
    await beside?.(app, options);
  };
}

/**
 * The docs of one operation at a path (`aka`: " Also at <main path>." at an alias, else empty):
 * the declared docs where there are some (written for people; at an alias they name the
 * operation's main path), else generated ones.
 */
function operationDocs<T extends Table>(c: Collection<T>, part: Part, aka: string) {
  const doc = c.docs?.[part];
  if (!doc) return generatedDocs(c, part, aka);
  const declared =
    part === 'update' && !c.update?.write
      ? lockedDescription(doc.description)
      : part === 'remove'
        ? removedDescription(doc.description)
        : (doc.description ?? '');
  const main = part === 'list' || part === 'create' ? c.path : `${c.path}/:${c.id}`;
  const also = aka && !declared.includes('Also at') ? ` Also at ${main}.` : '';
  const admins = isWrite(part) && c[part]?.rule !== 'member';
  return { ...doc, ...(admins ? { admins } : {}), description: `${declared}${also}` };
}

/** The docs of an operation the collection declares none for: `Create a training course`, and what it does. */
function generatedDocs<T extends Table>(
  c: Collection<T>,
  part: Part,
  aka: string,
): { summary: string; description: string } {
  const a = /^[aeiou]/i.test(c.noun) ? 'an' : 'a';
  const noun = c.noun.toLowerCase();
  const more = (note: string | undefined) => `${note ? ` ${note}` : ''}${aka}`;
  const whoWrites = (rule: WriteRule | undefined) => (rule === 'member' ? '' : ' (admins and owners)');
  switch (part) {
    case 'list': {
      const list = c.list ?? {};
      const searched = list.search ? `searched by \`q\` in ${list.search}, ` : '';
      const filters = [...Object.keys(list.equals ?? {}), ...Object.keys(list.query ?? {})];
      return {
        summary: `List ${c.nouns}`,
        description: `The ${c.nouns} the caller sees, ${searched}a page at a time (\`limit\`, \`offset\`; \`X-Total-Count\` and \`Link\` rel="next").${named('Filters', filters)}${named('Embeds', c.embeds ?? [])}${more(list.note)}`,
      };
    }
    case 'get':
      return {
        summary: `Get ${a} ${noun}`,
        description: `The ${noun} with this id, if the caller sees it (404 otherwise).${aka}`,
      };
    case 'create':
      return {
        summary: `Create ${a} ${noun}`,
        description: `Creates ${a} ${noun}${whoWrites(c.create?.rule)}; answers it with 201.${more(c.create?.note)}`,
      };
    case 'update':
      return {
        summary: `Update ${a} ${noun}`,
        description: `Changes the fields sent${whoWrites(c.update?.rule)}.${c.update?.write ? '' : ' `lockVersion` must be the one read: a stale one answers 409 and changes nothing.'}${more(c.update?.note)}`,
      };
    case 'remove':
      return {
        summary: `Delete ${a} ${noun}`,
        description: `Deletes the ${noun}${whoWrites(c.remove?.rule)}; answers 204.${more(c.remove?.note)}`,
      };
  }
}

const allParts: readonly Part[] = ['list', 'get', 'create', 'update', 'remove'];

export function registerCollection<T extends Table>(
  app: FastifyInstance,
  ctx: HubServices,
  c: Collection<T>,
): void {
  registerAt(app, ctx, c, c.path, allParts, '');
  for (const alias of c.aliases ?? []) {
    registerAt(app, ctx, c, alias.path, alias.parts, ` Also at ${c.path.replace(/:(\w+)/g, '{$1}')}.`);
  }
}

/** The operations `parts` of a collection at one path (its own, or an alias with `aka` in the docs). */
function registerAt<T extends Table>(
  app: FastifyInstance,
  ctx: HubServices,
  c: Collection<T>,
  path: string,
  parts: readonly Part[],
  aka: string,
): void {
  const parent = z.object(c.parent ?? {});
  const withId = parent.extend({ [c.id]: pathId });
  const idOf = (request: FastifyRequest) => (request.params as Params)[c.id];
  const paramsOf = (request: FastifyRequest) => request.params as Params;
  const itemPath = `${path}/:${c.id}`;
  const docs = (part: Part) => ({ tags: [c.tag], ...operationDocs(c, part, aka) });

  if (c.list && parts.includes('list')) {
    const list = c.list;
    const orderOf =
      typeof list.order === 'function'
        ? list.order
        : () => (list.order as Order | undefined) ?? [['id', 'asc']];
    app.get(
      path,
      {
        schema: {
          ...docs('list'),
          ...(c.parent ? { params: parent } : {}),
          querystring: z.object({
            ...pageParams,
            ...(c.embeds ? { embed: embedParam(c.embeds) } : {}),
            ...c.recordQuery,
            ...list.equals,
            ...list.query,
          }),
          response: { 200: z.array(c.record) },
        },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const caller = allowed(callerOf(request), list.rule ?? 'member');
        const query = request.query as Query & { limit: number; offset: number; q?: string };
        const hot = await c.hot?.list?.(ctx, caller, query);
        if (hot) {
          // The page's three numbers only: a copy of the whole query costs the hot list a few µs.
          const page = { limit: query.limit, offset: query.offset, total: hot.total };
          return sendPage(request, reply, page, hot.json, ctx.publicUrl, hot.count);
        }
        let base = await c.scope(ctx, caller, paramsOf(request), ctx.db);
        for (const column of Object.keys(list.equals ?? {})) {
          if (query[column] !== undefined)
            base = base.where(column as any, '=', query[column] as never) as Scope<T>;
        }
        if (list.where) base = await list.where(base, query, ctx, caller, paramsOf(request));
        if (list.search && query.q) {
          const column = list.search;
          base = base.where((eb) =>
            eb(eb.fn('lower', [eb.ref(column as any)]), 'like', likePattern(query.q as string)),
          ) as Scope<T>;
        }
        const page = await queryPage(base, query, (b) => {
          let ordered = b.selectAll() as any;
          for (const [column, direction, nulls] of orderOf(query)) {
            ordered = nulls
              ? ordered.orderBy(column, (ob: any) =>
                  (direction === 'desc' ? ob.desc() : ob.asc()).nullsLast(),
                )
              : ordered.orderBy(column, direction);
          }
          return ordered;
        });
        const records = await c.records(
          ctx,
          page.rows as RowOf<T>[],
          caller,
          (query.embed as string[]) ?? [],
          request,
        );
        return sendPage(request, reply, page, records, ctx.publicUrl);
      },
    );
  }

  if (parts.includes('get')) {
    app.get(
      itemPath,
      {
        schema: {
          ...docs('get'),
          params: withId,
          ...(c.embeds || c.recordQuery
            ? {
                querystring: z.object({
                  ...(c.embeds ? { embed: embedParam(c.embeds) } : {}),
                  ...c.recordQuery,
                }),
              }
            : {}),
          response: { 200: c.record },
        },
      },
      (request: FastifyRequest, reply: FastifyReply) => {
        const caller = callerOf(request);
        const embed = (request.query as { embed?: string[] } | undefined)?.embed ?? [];
        const general = async () => {
          const row = await findIn(c, ctx, caller, paramsOf(request), idOf(request));
          return one(c, ctx, caller, row, embed, request);
        };
        if (!c.hot?.get || embed.length > 0) return general();
        // A hot answer given at once is sent without a promise turn (a plain handler that sent).
        const hot = c.hot.get(ctx, caller, idOf(request));
        if (typeof hot === 'string') {
          sendJson(reply, hot);
          return;
        }
        if (hot === undefined) return general();
        return hot.then((json) => (json === undefined ? general() : sendJson(reply, json)));
      },
    );
  }

  if (c.create && parts.includes('create')) {
    const create = c.create;
    app.post(
      path,
      {
        schema: {
          ...docs('create'),
          ...(c.parent ? { params: parent } : {}),
          ...(create.body ? { body: create.body } : {}),
          response: { 201: c.record },
        },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const caller = callerOf(request);
        const params = paramsOf(request);
        // The parent first: 404 for what the caller does not see, then 403 for who may not write.
        if (c.parent) await c.scope(ctx, caller, params, ctx.db);
        allowed(caller, create.rule);
        const at = ctx.clock.now().toISOString();
        const row = await ctx.events
          .transaction((trx) => createWrite(c, trx, { ctx, caller, body: request.body, params, at }))
          .catch((err) => refused(c, err));
        await c.committed?.(ctx, row, 'create', caller);
        const record = await one(c, ctx, caller, row, [], request);
        return reply.code(201).send(create.answer ? create.answer(record, row, ctx) : record);
      },
    );
  }

  if (c.update && parts.includes('update')) {
    const update = c.update;
    app.put(
      itemPath,
      {
        schema: {
          ...docs('update'),
          params: withId,
          body: update.body,
          response: { 200: c.record },
        },
      },
      async (request: FastifyRequest) =>
        updateIn(c, ctx, request, paramsOf(request), idOf(request), request.body),
    );
  }

  if (c.remove && parts.includes('remove')) {
    const remove = c.remove;
    app.delete(
      itemPath,
      {
        schema: {
          ...docs('remove'),
          params: withId,
        },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const caller = callerOf(request);
        const row = await findIn(c, ctx, caller, paramsOf(request), idOf(request));
        allowed(caller, remove.rule);
        const write = () => ctx.events.transaction((trx) => removeWrite(c, trx, ctx, caller, row));
        await (remove.retry ? retryOnConflict(write) : write());
        await c.committed?.(ctx, row, 'remove', caller);
        return reply.code(204).send();
      },
    );
  }
}
