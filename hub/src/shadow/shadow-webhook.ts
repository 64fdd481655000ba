import type { Selectable } from 'kysely';
import type { AccessPolicy } from '../access/policy.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/crud.js';
import type { ShadowReceiversTable } from '../db/schema.js';
import { badRequest, notFound } from '../errors.js';
import { hashToken, newSecretToken, safeEqual } from '../secrets.js';
import { defaultIdTranslation, type IdTranslationFor } from './id-map.js';
import { compareDecision, readTheirLog, sourceName } from './shadow.js';
import {
  comparedLogs,
  deleteShadowReceiver,
  insertShadowReceiver,
  shadowReceiver,
  shadowReceiverOf,
  shadowReceivers,
  updateShadowReceiver,
} from './shadow.repository.js';

/*
 * Shadow mode's webhook receiver (docs/MOVING.md): the other server posts each resource log
 * event to a secret URL of ours, and its allowed or denied decision is compared at once, by the
 * same code and into the same records as `makerspace-hub shadow` (each log once, whichever
 * comes first). The commercial service signs nothing, so the unguessable secret in the URL is
 * the credential; only its hash is kept.
 */

type ReceiverRow = Selectable<ShadowReceiversTable>;

/** The path under the API of a receiver's URL. */
export const receiverPath = (id: number, secret: string) => `/api/v1/shadow/webhook/${id}/${secret}`;

export function receiverRecord(row: ReceiverRow, url?: string) {
  return {
    id: row.id,
    source: row.source,
    createdAt: row.createdAt,
    rotatedAt: row.rotatedAt,
    lastEventAt: row.lastEventAt,
    ...(url === undefined ? {} : { url }),
  };
}

export const listReceivers = async (db: Db, account: number) =>
  (await shadowReceivers(db, account)).map((r) => receiverRecord(r));

/**
 * The receiver for a source, with a new secret: made when the source has none, else its secret
 * is replaced (the old URL stops working). Answers the row and the secret (shown only now).
 */
export async function makeReceiver(
  db: Db,
  account: number,
  sourceUrl: string,
  at: string,
  by: number | null,
): Promise<{ row: ReceiverRow; secret: string }> {
  const source = sourceName(sourceUrl);
  const secret = newSecretToken();
  const existing = await shadowReceiverOf(db, account, source);
  const row = existing
    ? await updateShadowReceiver(db, existing.id, {
        secretHash: hashToken(secret),
        rotatedAt: at,
        updatedBy: by,
      })
    : await insertShadowReceiver(db, {
        account,
        source,
        secretHash: hashToken(secret),
        createdAt: at,
        rotatedAt: at,
        lastEventAt: null,
        updatedBy: by,
      });
  return { row, secret };
}

/** A new secret for the account's receiver `id`; the old URL stops working. */
export async function rotateReceiver(
  db: Db,
  account: number,
  id: number,
  at: string,
  by: number | null,
): Promise<{ row: ReceiverRow; secret: string }> {
  const row = await shadowReceiver(db, id);
  if (!row || row.account !== account) throw notFound('Shadow receiver');
  const secret = newSecretToken();
  return {
    row: await updateShadowReceiver(db, id, { secretHash: hashToken(secret), rotatedAt: at, updatedBy: by }),
    secret,
  };
}

export async function removeReceiver(db: Db, account: number, id: number): Promise<void> {
  if (!(await deleteShadowReceiver(db, account, id))) throw notFound('Shadow receiver');
}

export interface ReceiverDeps {
  db: Db;
  policy: AccessPolicy;
  clock: Clock;
  ids?: IdTranslationFor;
}

const decisionTypes = new Set(['resourceLog_created', 'resourceLog_updated']);

/**
 * One event the other server posted to receiver `id` with `secret`. A wrong id or secret is
 * `404` (nothing tells which); a body that is no event, or a resource log event whose log is
 * unreadable, is `400` and stores nothing. Other event types and logs that are no allowed or
 * denied decision are taken (200) and change nothing, so the other server does not retry them.
 */
export async function receiveShadowEvent(
  deps: ReceiverDeps,
  id: number,
  secret: string,
  body: unknown,
): Promise<{ compared: boolean; agrees?: boolean; note?: string }> {
  const row = await shadowReceiver(deps.db, id);
  // Compared in constant time, and by hash even when the id is unknown, so timing tells nothing.
  const matches = safeEqual(row?.secretHash ?? '', hashToken(secret));
  if (!row || !matches) throw notFound('Shadow receiver');
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('Expected a webhook event: a JSON object with `type` and `details`');
  const event = body as { type?: unknown; details?: unknown };
  if (typeof event.type !== 'string' || event.type === '')
    throw badRequest('The event has no `type` (such as "resourceLog_created")');
  if (!decisionTypes.has(event.type))
    return {
      compared: false,
      note: `events of type ${JSON.stringify(event.type.slice(0, 40))} are not compared`,
    };
  const details = event.details as { log?: unknown } | undefined;
  if (typeof details !== 'object' || details === null || !('log' in details))
    throw badRequest(`A ${event.type} event needs \`details.log\` (the resource log)`);
  const read = readTheirLog(details.log);
  if ('error' in read) throw badRequest(`details.log: ${read.error}`);
  const now = deps.clock.now().toISOString();
  await updateShadowReceiver(deps.db, row.id, { lastEventAt: now });
  if ('ignored' in read) return { compared: false, note: read.ignored };
  const theirs = read.decision;
  if ((await comparedLogs(deps.db, row.source, [theirs.log])).has(theirs.log))
    return { compared: false, note: `their log ${theirs.log} was compared already` };
  const ids = await (deps.ids ?? defaultIdTranslation)(deps.db, row.account, row.source);
  const { agrees, stored } = await compareDecision(
    { db: deps.db, policy: deps.policy, clock: deps.clock, account: row.account, ids },
    row.source,
    theirs,
  );
  return stored
    ? { compared: true, agrees }
    : { compared: false, note: `their log ${theirs.log} was compared already` };
}
