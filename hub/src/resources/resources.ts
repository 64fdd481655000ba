import type { Selectable } from 'kysely';
import type { HubContext } from '../context.js';
import { bool, type Db, jsonText, parseJson } from '../db/crud.js';
import { inAccount, recordEvents } from '../db/records.js';
import type { ResourcesTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { writeColumns } from '../db/crud.js';
import { badRequest, notFound, unprocessable } from '../errors.js';
import { sanitizeRichText } from '../rich-text.js';
import { isTotpSecret, MIN_TOTP_SECRET_CHARS, newSwitchOnCode, newTotpSecret, totpUri } from './codes.js';
import type { StopType } from '@makerspace/shared';
import { insertRow } from '../db/collection-rows.js';
import { webhookReceiver } from '../kernel/caller.js';
import { lastUseRows, resourceRow, spaceForResource, visibleResources } from './resources.repository.js';

export type ResourceRow = Selectable<ResourcesTable>;
export type LastUsed = { id: number; at: string; member: number | null; stopType: StopType | null };

export function resourceRecord(row: ResourceRow, ctx: HubContext, caller: Caller) {
  return {
    id: row.id,
    account: row.account,
    space: row.space,
    name: row.name,
    type: row.type,
    controlType: row.controlType,
    state: row.state,
    requiresTraining: bool(row.requiresTraining),
    canBeBooked: bool(row.canBeBooked),
    mustBeBooked: bool(row.mustBeBooked),
    exclusiveUsage: bool(row.exclusiveUsage),
    visibleForMembers: bool(row.visibleForMembers),
    description: row.description,
    notes: row.notes,
    maintenanceNotes: row.maintenanceNotes,
    displayTitle: row.displayTitle,
    safetyMessage: row.safetyMessage,
    maxOfflineUsage: row.maxOfflineUsage,
    maxDuration: row.maxDuration,
    lockReason: row.lockReason,
    entrance: bool(row.entrance),
    unlockMode: row.unlockMode as 'normal' | 'openingHours' | 'firstIn',
    idleTimeoutSeconds: row.idleTimeoutSeconds,
    idleWarningSeconds: row.idleWarningSeconds,
    busyGraceSeconds: row.busyGraceSeconds,
    deadManIntervalBusy: row.deadManIntervalBusy,
    deadManIntervalIdle: row.deadManIntervalIdle,
    idlePowerThreshold: row.idlePowerThreshold,
    pricePerTimeBusy: row.pricePerTimeBusy,
    pricePerTimeBusySeconds: row.pricePerTimeBusySeconds,
    pricePerTimeIdle: row.pricePerTimeIdle,
    pricePerTimeIdleSeconds: row.pricePerTimeIdleSeconds,
    pricePerUsage: row.pricePerUsage,
    pricingMinDurationSeconds: row.pricingMinDurationSeconds,
    pricePerBooking: row.pricePerBooking,
    pricePerBookingSeconds: row.pricePerBookingSeconds,
    metadata: parseJson<Record<string, unknown>>(row.metadata),
    pulseSeconds: row.pulseSeconds,
    codeMode: row.codeMode as 'static' | 'totp',
    // The code is on the sticker at the machine; the API shows it to admins only (DESIGN 6).
    ...(isAdmin(caller) && caller.accountId === row.account ? adminCodeFields(ctx, row) : {}),
    lastUsed: null as null | LastUsed,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** The switch-on code, and for TOTP resources the provisioning URI for authenticator apps. */
function adminCodeFields(ctx: HubContext, row: ResourceRow) {
  const switchOnCode = ctx.tokens.open(row.switchOnCodeEncrypted);
  return row.codeMode === 'totp'
    ? { switchOnCode, totpUri: totpUri(switchOnCode, row.name) }
    : { switchOnCode };
}

export { visibleResources } from './resources.repository.js';

export async function findResource(db: Db, caller: Caller, id: number): Promise<ResourceRow> {
  const row = await visibleResources(db, caller)
    .selectAll()
    .where('resources.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Resource');
  return row;
}

/** A resource of the caller's account whatever its visibility (switch-on: the code proves presence). */
/** findResourceInAccount's rule for a row already read: superusers see all, others their account's. */
export function inCallersAccount(caller: Caller, row: Pick<ResourceRow, 'account'>): boolean {
  return caller.superuser || row.account === caller.accountId;
}

export async function findResourceInAccount(db: Db, caller: Caller, id: number): Promise<ResourceRow> {
  const row = await resourceRow(db, id, caller);
  if (!row) throw notFound('Resource');
  return row;
}

type ResourceInput = Record<string, unknown>;

/**
 * The switch-on secret to store, if it changes: the one given (a TOTP secret must be base32, so
 * authenticator apps can take it), a new one for null, and a new one of the new kind when the
 * code mode changes without one.
 */
function switchOnSecret(input: ResourceInput, currentMode: string | undefined): string | undefined {
  const mode = (input.codeMode as string | undefined) ?? currentMode ?? 'static';
  const given = input.switchOnCode as string | null | undefined;
  const fresh = () => (mode === 'totp' ? newTotpSecret() : newSwitchOnCode());
  if (given === null) return fresh();
  if (given !== undefined) {
    if (mode === 'totp' && !isTotpSecret(given))
      throw badRequest(
        `switchOnCode: a TOTP secret is base32 (A-Z, 2-7), at least ${MIN_TOTP_SECRET_CHARS} characters`,
        { field: 'switchOnCode' },
      );
    return mode === 'totp' ? given.toUpperCase() : given;
  }
  return mode !== (currentMode ?? 'static') ? fresh() : undefined;
}

/**
 * Checks that space and type belong to the account; returns the column values to write.
 * `currentMode` is the stored code mode on update (none on create).
 */
export async function resourceColumns(
  ctx: HubContext,
  account: number,
  input: ResourceInput,
  currentMode?: string,
) {
  if (input.space !== undefined && !(await inAccount(ctx.db, 'spaces', input.space as number, account)))
    throw unprocessable(`Space ${input.space} does not exist in this account`, { unknownSpace: true });
  const type = input.type as number | null | undefined;
  if (type !== undefined && type !== null && !(await inAccount(ctx.db, 'resource_types', type, account)))
    throw unprocessable(`Resource type ${type} does not exist in this account`, { unknownType: true });
  const { switchOnCode: _given, ...rest } = input;
  const secret = switchOnSecret(input, currentMode);
  return writeColumns(
    {
      ...rest,
      description: sanitizeRichText(rest.description as string | null | undefined),
      notes: sanitizeRichText(rest.notes as string | null | undefined),
      maintenanceNotes: sanitizeRichText(rest.maintenanceNotes as string | null | undefined),
      metadata: jsonText(rest.metadata),
      switchOnCodeEncrypted: secret === undefined ? undefined : ctx.tokens.seal(secret),
    },
    ['requiresTraining', 'canBeBooked', 'mustBeBooked', 'exclusiveUsage', 'visibleForMembers', 'entrance'],
  );
}

export async function insertResource(
  ctx: HubContext,
  caller: Caller,
  input: ResourceInput,
  at: string,
): Promise<ResourceRow> {
  const space = await spaceForResource(ctx.db, caller, input.space as number);
  if (!space)
    throw unprocessable(`Space ${input.space} does not exist in this account`, { unknownSpace: true });
  const values = await resourceColumns(ctx, space.account, input);
  return insertRow(
    ctx.db,
    'resources',
    { switchOnCodeEncrypted: ctx.tokens.seal(newSwitchOnCode()), ...values, account: space.account },
    { at, by: caller.memberId },
  );
}

/** lastUsed of each resource: its newest allowed log, with how it stopped (null while running). */
export async function lastUsedOf(db: Db, resourceIds: number[]) {
  const map = new Map<number, LastUsed>();
  if (resourceIds.length === 0) return map;
  const rows = await lastUseRows(db, resourceIds);
  for (const r of rows)
    map.set(r.resource, { id: r.id, at: r.at, member: r.member, stopType: r.stopType as StopType | null });
  return map;
}

/** A resource as webhook payloads carry it: the receiver's view, with its last use. */
export async function resourceEventRecord(db: Db, row: ResourceRow) {
  const lastUsed = await lastUsedOf(db, [row.id]);
  // The context is read only for the switch-on code, which the receiver view never gets.
  return {
    ...resourceRecord(row, undefined as unknown as HubContext, webhookReceiver),
    lastUsed: lastUsed.get(row.id) ?? null,
  };
}

export async function resourceEventRecordById(db: Db, id: number) {
  const row = await resourceRow(db, id);
  return row ? resourceEventRecord(db, row) : null;
}

export const emitResource = recordEvents<ResourceRow, 'resource'>(async (db, row) => ({
  resource: await resourceEventRecord(db, row),
}));
