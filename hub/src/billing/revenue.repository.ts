import { type Db, qualified } from '../db/crud.js';
import { inRangePage, type RangePage } from '../db/range-page.js';

/**
 * The charges the revenue report adds up: one account's charges dated in a range of instants,
 * each with the package it bills (through its member package) and the resource it bills (through
 * its resource log or booking), when it bills one. One page after a charge id.
 */
export function revenueRows(db: Db, page: RangePage) {
  const charges = db
    .selectFrom('charges')
    .leftJoin('member_packages', 'member_packages.id', 'charges.memberPackage')
    .leftJoin('packages', 'packages.id', 'member_packages.package')
    .leftJoin('resource_logs', 'resource_logs.id', 'charges.resourceLog')
    .leftJoin('bookings', 'bookings.id', 'charges.booking')
    .select((eb) => [
      ...qualified('charges', ['id', 'dateTime', 'price']),
      'packages.id as package',
      'packages.name as packageName',
      eb.fn.coalesce('resource_logs.resource', 'bookings.resource').as('resource'),
    ]);
  return inRangePage(charges, 'charges', 'dateTime', page).execute();
}
