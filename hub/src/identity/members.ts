import type { MemberRecord } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import type { Db } from '../db/crud.js';
import { bool, defined, flag, isUniqueViolation, jsonText, parseJson } from '../db/crud.js';
import { insertRow } from '../db/collection-rows.js';
import { requiredRow, stampsOf, visibleRow } from '../db/records.js';
import type { MembersTable } from '../db/schema.js';
import { type Caller, isAdmin } from '../kernel/caller.js';
import { conflict, forbidden, unprocessable } from '../errors.js';
import {
  countOwners,
  type MemberListQuery,
  type MemberQuery,
  memberById,
  spaceForMember,
  visibleMembers,
  writePrivileges,
} from './members.repository.js';

export { filterMembers, type MemberListQuery, visibleMembers } from './members.repository.js';
import { sanitizeRichText } from '../rich-text.js';
import { emitEvent } from '../db/outbox.js';
import { updateRow } from '../db/collection-rows.js';

export type MemberRow = Selectable<MembersTable>;

export function memberRecord(row: MemberRow): MemberRecord {
  return {
    id: row.id,
    account: row.account,
    space: row.space,
    memberNumber: row.memberNumber,
    firstName: row.firstName,
    lastName: row.lastName,
    emailAddress: row.emailAddress,
    state: row.state as MemberRecord['state'],
    dateOfBirth: row.dateOfBirth,
    gender: row.gender,
    company: row.company,
    phone: row.phone,
    address: row.address,
    address2: row.address2,
    city: row.city,
    zip: row.zip,
    countryCode: row.countryCode,
    region: row.region,
    notes: row.notes,
    taxExempt: bool(row.taxExempt),
    hasBillingAddress: bool(row.hasBillingAddress),
    billingFirstName: row.billingFirstName,
    billingLastName: row.billingLastName,
    billingCompany: row.billingCompany,
    billingAddress: row.billingAddress,
    billingAddress2: row.billingAddress2,
    billingCity: row.billingCity,
    billingZip: row.billingZip,
    billingCountryCode: row.billingCountryCode,
    billingRegion: row.billingRegion,
    billingInvoiceText: row.billingInvoiceText,
    requireUpfrontPayment: bool(row.requireUpfrontPayment),
    upfrontMinimumBalance: row.upfrontMinimumBalance,
    metadata: parseJson(row.metadata),
    allowLogin: bool(row.allowLogin),
    language: row.language,
    superuser: bool(row.superuser),
    ...stampsOf(row),
  };
}

/** /user/me: the member without state and superuser, plus Fabman's `members` list. */
export function userMeRecord(row: MemberRow) {
  const { state: _state, superuser: _superuser, ...me } = memberRecord(row);
  return { ...me, privileges: row.privileges as 'member' | 'admin' | 'owner', members: [me] };
}

/** Fields only admins may change; a member editing themself has them ignored like read-only fields. */
const adminOnlyFields = [
  'space',
  'memberNumber',
  'state',
  'notes',
  'taxExempt',
  'requireUpfrontPayment',
  'upfrontMinimumBalance',
  'metadata',
  'allowLogin',
] as const;

/** visibleMembers for one record already read. */
export function canSeeMember(caller: Caller, row: Pick<MemberRow, 'id' | 'account'>): boolean {
  if (caller.superuser) return true;
  if (row.account !== caller.accountId) return false;
  return isAdmin(caller) || row.id === caller.memberId;
}

export async function findMember(db: Db, caller: Caller, id: number): Promise<MemberRow> {
  return visibleRow(visibleMembers(db, caller), 'members', id, 'Member');
}

/** Does the query filter or search at all (else the whole visible list is asked for)? */
export const filtersMembers = (query: MemberListQuery): boolean =>
  (
    ['q', 'state', 'privileges', 'space', 'emailAddress', 'memberNumber', 'keyType', 'keyToken'] as const
  ).some((f) => query[f] !== undefined);

const nullableOrderColumns = new Set(['memberNumber', 'emailAddress']);

/** The order of a member list: `orderBy` (nullable columns with their nulls last), then id. */
export function memberOrder(
  list: MemberListQuery,
): ([string, 'asc' | 'desc'] | [string, 'asc' | 'desc', 'nullsLast'])[] {
  const direction = list.order ?? 'asc';
  const by = list.orderBy ?? 'id';
  if (by === 'id') return [['id', direction]];
  return [nullableOrderColumns.has(by) ? [by, direction, 'nullsLast'] : [by, direction], ['id', direction]];
}

/** Orders a member query by memberOrder. */
export function orderedMembers<Q extends MemberQuery>(query: Q, list: MemberListQuery): Q {
  let ordered = query as MemberQuery;
  for (const [column, direction, nulls] of memberOrder(list)) {
    ordered = nulls
      ? ordered.orderBy(column as 'id', (ob) => (direction === 'desc' ? ob.desc() : ob.asc()).nullsLast())
      : ordered.orderBy(column as 'id', direction);
  }
  return ordered as Q;
}

/** The space a member goes to: the one named (in the caller's view), else the caller's own. */
async function resolveSpace(db: Db, caller: Caller, space: number | undefined, accountId?: number) {
  if (space === undefined) return { space: caller.spaceId, account: caller.accountId };
  const row = await spaceForMember(db, caller, space, accountId);
  if (!row) throw unprocessable(`Space ${space} does not exist in this account`, { unknownSpace: true });
  return { space: row.id, account: row.account };
}

/** A unique-index violation of a member write: the e-mail address is another member's (422). */
export function refuseDuplicateEmail(err: unknown): void {
  if (isUniqueViolation(err)) {
    throw unprocessable('Another member of this account has this e-mail address', {
      duplicateEmailAddress: true,
    });
  }
}

type MemberInput = Record<string, unknown> & { emailAddress?: string | null; notes?: string | null };

function columns(input: MemberInput) {
  return defined({
    ...input,
    notes: sanitizeRichText(input.notes),
    emailKey: input.emailAddress === undefined ? undefined : (input.emailAddress?.toLowerCase() ?? null),
    taxExempt: flag(input.taxExempt as boolean | undefined),
    hasBillingAddress: flag(input.hasBillingAddress as boolean | undefined),
    requireUpfrontPayment: flag(input.requireUpfrontPayment as boolean | undefined),
    allowLogin: flag(input.allowLogin as boolean | undefined),
    metadata: jsonText(input.metadata),
  });
}

/**
 * Creates a member stamped `at`; emits member_created in `db`, the transaction of the change
 * (ctx.events.transaction), so the webhook event commits or rolls back with it.
 */
export async function createMember(
  db: Db,
  caller: Caller,
  input: MemberInput,
  at: string,
): Promise<MemberRow> {
  const { space, account } = await resolveSpace(db, caller, input.space as number | undefined);
  const row = await insertRow(
    db,
    'members',
    { lastName: '', ...(columns(input) as Record<string, unknown>), space, account },
    { at, by: caller.memberId },
  );
  await emitMember(db, 'member_created', row);
  return row;
}

/**
 * The columns a member update changes: fields only admins may change are ignored for others
 * (like read-only fields), a new space must be one of the member's account.
 */
export async function memberChanges(db: Db, caller: Caller, current: MemberRow, input: MemberInput) {
  const { lockVersion: _lockVersion, ...fields } = input;
  if (!isAdmin(caller)) for (const f of adminOnlyFields) delete fields[f];
  if (fields.space !== undefined) await resolveSpace(db, caller, fields.space as number, current.account);
  return columns(fields);
}

/** A member may not delete themself; only owners delete owners. */
export function refuseMemberDelete(caller: Caller, row: MemberRow): void {
  if (row.id === caller.memberId) throw conflict('You cannot delete your own member record');
  if (row.privileges === 'owner' && caller.privileges !== 'owner' && !caller.superuser) {
    throw forbidden('Only owners may delete an owner');
  }
}

/**
 * Sets a member's privileges. Only owners grant or take away owner privileges; nobody changes
 * their own (another admin or owner must, so an admin cannot lock themself out by a slip); and
 * an account keeps at least one owner. Each refusal says why, with a flag in `data`.
 */
export async function setPrivileges(db: Db, caller: Caller, row: MemberRow, wanted: string): Promise<void> {
  if (wanted === row.privileges) return;
  const isOwner = caller.privileges === 'owner' || caller.superuser;
  if ((wanted === 'owner' || row.privileges === 'owner') && !isOwner) {
    throw forbidden('Only owners may grant or take away owner privileges');
  }
  // The last owner first: for the last owner changing their own, it is the reason that helps.
  if (row.privileges === 'owner' && (await countOwners(db, row.account)) <= 1) {
    const who = row.id === caller.memberId ? 'You are' : `${`${row.firstName} ${row.lastName}`.trim()} is`;
    throw unprocessable(`${who} the account's last owner: make another member owner first`, {
      lastOwner: true,
    });
  }
  if (row.id === caller.memberId) {
    throw unprocessable('You cannot change your own privileges: another owner or admin must', {
      ownPrivileges: true,
    });
  }
  await writePrivileges(db, row.id, wanted);
}

/** member_created/updated/deleted `{member}`, in the change's transaction. */
export async function emitMember(
  db: Db,
  type: 'member_created' | 'member_updated' | 'member_deleted',
  row: MemberRow,
): Promise<void> {
  await emitEvent(db, { account: row.account, type, details: { member: memberRecord(row) } });
}

/** A member as webhook payloads carry it (null for none). */
export async function memberEventRecord(db: Db, id: number | null) {
  if (id === null) return null;
  const row = await memberById(db, id);
  return row ? memberRecord(row) : null;
}

/**
 * Writes member fields decided earlier (a scheduled change, identity/member-changes.ts) as
 * PUT /members/{id} would: the same columns, lockVersion + 1, member_updated. Stamped `at`.
 */
export async function writeMemberFields(
  db: Db,
  current: MemberRow,
  fields: MemberInput,
  stamp: { at: string; by: number | null },
): Promise<MemberRow> {
  try {
    await updateRow(db, 'members', current.id, current.lockVersion, columns(fields), stamp);
  } catch (err) {
    refuseDuplicateEmail(err);
    throw err;
  }
  const row = await requiredRow(db, 'members', current.id);
  await emitMember(db, 'member_updated', row);
  return row;
}
