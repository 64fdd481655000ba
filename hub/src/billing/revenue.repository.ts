import type { Db } from '../db/crud.js';

/**
 * The charges the revenue report adds up: one account's charges dated in a range of instants
 * (ISO, UTC), each with the package it bills (through its member package) and the resource it
 * bills (through its resource log or booking), when it bills one. One page after a charge id.
 */
export function revenueRows(
  db: Db,
  account: number,
  startsAt: string,
  endsAt: string,
  afterId: number,
  limit: number,
) {
  return db
    .selectFrom('charges')
    .leftJoin('member_packages', 'member_packages.id', 'charges.memberPackage')
    .leftJoin('packages', 'packages.id', 'member_packages.package')
    .leftJoin('resource_logs', 'resource_logs.id', 'charges.resourceLog')
    .leftJoin('bookings', 'bookings.id', 'charges.booking')
    .select((eb) => [
      'charges.id',
      'charges.dateTime',
      'charges.price',
      'packages.id as package',
      'packages.name as packageName',
      eb.fn.coalesce('resource_logs.resource', 'bookings.resource').as('resource'),
    ])
    .where('charges.account', '=', account)
    .where('charges.dateTime', '>=', startsAt)
    .where('charges.dateTime', '<', endsAt)
    .where('charges.id', '>', afterId)
    .orderBy('charges.id')
    .limit(limit)
    .execute();
}
