import type { Insertable } from 'kysely';
import {
  type Db,
  deleteWhere,
  firstWhere,
  insertReturning,
  type Match,
  type MemberName,
  namedMembersWhere,
} from '../db/crud.js';
import type { Database } from '../db/schema.js';
import { conflict, notFound, unprocessable } from '../errors.js';
import { memberById } from '../identity/members.repository.js';
import { type Caller, seesAccount } from '../kernel/caller.js';

/**
 * Member roles: an admin names a member of the account to one thing of it, the role's subject —
 * trainer of a training course (spaces/trainers.ts), maintainer of a resource type
 * (problems/maintainers.ts). Each role is a table of (subject, member, account, createdAt,
 * createdBy) rows, owned by the area that declares the role.
 */

/** The role tables and the column of each that names the subject. */
interface RoleSubjects {
  course_trainers: 'course';
  resource_type_maintainers: 'type';
}
type RoleTable = keyof RoleSubjects;

/** The tables of the subjects. */
type SubjectTable = 'training_courses' | 'resource_types';

export interface MemberRole<K extends string, T extends RoleTable = RoleTable> {
  table: T;
  subject: RoleSubjects[T];
  /** The subject's name in a record (`trainingCourse`). */
  recordKey: K;
  /** The subjects' table, and what one is called in a 404 (`Training course`). */
  subjectTable: SubjectTable;
  subjectName: string;
  /** Refusal of a member who holds the role already (409). */
  alreadyHeld: { message: string; data: Record<string, boolean> };
  /** What a missing role is called in a 404 (`Trainer`). */
  holderName: string;
}

export type RoleRecord<K extends string> = { [P in K]: number } & {
  member: number;
  createdAt: string;
  createdBy: number | null;
  _embedded: { member: { id: number } & MemberName };
};

interface RoleRow extends MemberName {
  member: number;
  createdAt: string;
  createdBy: number | null;
}

function roleRecord<K extends string>(role: { recordKey: K }, subject: number, row: RoleRow) {
  return {
    [role.recordKey]: subject,
    member: row.member,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    _embedded: { member: { id: row.member, firstName: row.firstName, lastName: row.lastName ?? null } },
  } as RoleRecord<K>;
}

/** The role's subject the caller sees (of its account), or 404. */
export async function visibleSubject(db: Db, caller: Caller, role: MemberRole<string>, id: number) {
  const subject = await firstWhere(db, role.subjectTable, { id }, ['id', 'account']);
  if (!subject || !seesAccount(caller, subject.account)) throw notFound(role.subjectName);
  return subject;
}

/** The row saying this member holds the role for the subject, if they do. */
export function roleHeld(db: Db, role: MemberRole<string>, subject: number, member: number) {
  return firstWhere(db, role.table, holding(role, subject, member));
}

function holding(role: MemberRole<string>, subject: number, member?: number) {
  return { [role.subject]: subject, ...(member === undefined ? {} : { member }) } as Match<RoleTable>;
}

/** Every holder of the role for the subject, with their names, by name. */
export async function roleHolders<K extends string>(
  db: Db,
  caller: Caller,
  role: MemberRole<K>,
  subjectId: number,
): Promise<RoleRecord<K>[]> {
  const subject = await visibleSubject(db, caller, role, subjectId);
  const rows = await namedMembersWhere(db, role.table, holding(role, subject.id), [
    'member',
    'createdAt',
    'createdBy',
  ]);
  return rows.map((row) => roleRecord(role, subject.id, row));
}

/** Gives a member of the subject's account the role (admins); 422 for another account's member, 409 twice. */
export async function addRoleHolder<K extends string>(
  db: Db,
  caller: Caller,
  role: MemberRole<K>,
  subjectId: number,
  memberId: number,
  at: string,
): Promise<RoleRecord<K>> {
  const subject = await visibleSubject(db, caller, role, subjectId);
  const member = await memberById(db, memberId);
  if (!member || member.account !== subject.account) {
    throw unprocessable(`Member ${memberId} does not exist in this account`, { unknownMember: true });
  }
  if (await roleHeld(db, role, subject.id, member.id)) {
    throw conflict(role.alreadyHeld.message, role.alreadyHeld.data);
  }
  const row = await insertReturning(db, role.table, {
    [role.subject]: subject.id,
    member: member.id,
    account: subject.account,
    createdAt: at,
    createdBy: caller.memberId || null,
  } as Insertable<Database[RoleTable]>);
  return roleRecord(role, subject.id, { ...row, firstName: member.firstName, lastName: member.lastName });
}

/** Takes the role from the member (admins); 404 when they did not hold it. */
export async function removeRoleHolder(
  db: Db,
  caller: Caller,
  role: MemberRole<string>,
  subjectId: number,
  memberId: number,
): Promise<void> {
  const subject = await visibleSubject(db, caller, role, subjectId);
  if ((await deleteWhere(db, role.table, holding(role, subject.id, memberId))) === 0) {
    throw notFound(role.holderName);
  }
}
