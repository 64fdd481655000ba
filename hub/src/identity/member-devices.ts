import { insertRow } from '../db/collection-rows.js';
import type { Db, TableRow } from '../db/crud.js';
import { columnsOf, recordOf } from '../db/records.js';
import type { MemberRow } from './members.js';
import { memberDeviceOf, updateMemberDevice } from './members.repository.js';

/**
 * The device a member uses the hub's app on (/members/{id}/device), and its history
 * (/members/{id}/device/changes): each write of the device adds a device change.
 */

export type MemberDeviceRow = TableRow<'member_devices'>;
interface DeviceInput {
  name?: string | null;
  details?: string | null;
  userAgent?: string | null;
}

export function memberDeviceRecord(row: MemberDeviceRow) {
  return columnsOf(row, ['member', 'name', 'details', 'userAgent', 'createdAt', 'updatedAt']);
}

export function deviceChangeRecord(row: MemberDeviceRow) {
  return recordOf(row, ['id', 'account', 'member', 'name', 'details', 'userAgent']);
}

export const findMemberDevice = memberDeviceOf;

const deviceColumns = (body: DeviceInput) => ({
  name: body.name ?? null,
  details: body.details ?? null,
  userAgent: body.userAgent ?? null,
});

export function insertDeviceChange(
  db: Db,
  member: Pick<MemberRow, 'id' | 'account'>,
  body: DeviceInput,
  stamp: { at: string; by: number | null },
) {
  return insertRow(
    db,
    'member_device_changes',
    { account: member.account, member: member.id, ...deviceColumns(body) },
    stamp,
  );
}

/** Sets the member's device (fields left out keep their value) and records the change. */
export async function putMemberDevice(
  db: Db,
  member: Pick<MemberRow, 'id' | 'account'>,
  body: DeviceInput,
  stamp: { at: string; by: number | null },
): Promise<MemberDeviceRow> {
  const current = await findMemberDevice(db, member.id);
  const next = deviceColumns({ ...(current ?? {}), ...body });
  if (current) {
    await updateMemberDevice(db, current.id, { ...next, lockVersion: current.lockVersion + 1 }, stamp);
  } else {
    await insertRow(db, 'member_devices', { account: member.account, member: member.id, ...next }, stamp);
  }
  await insertDeviceChange(db, member, next, stamp);
  return (await findMemberDevice(db, member.id)) as MemberDeviceRow;
}
