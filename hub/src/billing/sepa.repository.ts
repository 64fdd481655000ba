import type { Insertable, Updateable } from 'kysely';
import {
  type Db,
  deleteWhere,
  insertReturning,
  qualified,
  selectFirstWhere,
  selectWhere,
  updateWhere,
} from '../db/crud.js';
import { isPostgres } from '../db/fast-reads.js';
import type { SepaBatchesTable, SepaDebitsTable } from '../db/schema.js';

/**
 * The `sepa_batches` and their `sepa_debits` (one per invoice in the file), and what a batch
 * reads of invoices and the members' payment methods. Functions take the database (or the
 * transaction of the change) first.
 */

/**
 * A space's unpaid invoices (only those of `ids` when given), with the member's name and stored
 * payment method (JSON text), by member and date.
 */
export function unpaidInvoicesOfSpace(db: Db, spaceId: number, ids: number[] | null) {
  let query = db
    .selectFrom('invoices')
    .innerJoin('members', 'members.id', 'invoices.member')
    .leftJoin('member_payment_details', 'member_payment_details.member', 'invoices.member')
    .select(qualified('invoices', ['id', 'member', 'number', 'currency', 'total', 'paid', 'recipientName']))
    .select(['members.firstName', 'members.lastName', 'member_payment_details.paymentMethod'])
    .where('invoices.space', '=', spaceId)
    .where('invoices.state', '=', 'unpaid');
  if (ids) query = query.where('invoices.id', 'in', ids);
  return query.orderBy('invoices.member').orderBy('invoices.date').orderBy('invoices.id').execute();
}

/** Of these invoices, those with a debit in collection, with its batch. */
export function debitsInCollection(db: Db, invoiceIds: number[]) {
  const where = { invoice: invoiceIds, state: 'inCollection' };
  return selectWhere(db, 'sepa_debits', where, { columns: ['invoice', 'batch'] });
}

/** The mandates (member, reference) of these members that a debit used and did not come back. */
export function usedMandates(db: Db, memberIds: number[]) {
  if (memberIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_debits')
    .select(['member', 'mandateReference'])
    .distinct()
    .where('member', 'in', memberIds)
    .where('state', 'in', ['inCollection', 'collected'])
    .execute();
}

export function insertSepaBatch(trx: Db, values: Insertable<SepaBatchesTable>) {
  return insertReturning(trx, 'sepa_batches', values);
}

export async function insertSepaDebits(trx: Db, values: Insertable<SepaDebitsTable>[]) {
  for (let i = 0; i < values.length; i += 200) {
    await trx
      .insertInto('sepa_debits')
      .values(values.slice(i, i + 200))
      .execute();
  }
}

/** The batches of an account (all when null), newest first. */
export function sepaBatchRows(db: Db, accountId: number | null, page: { limit: number; offset: number }) {
  let query = db.selectFrom('sepa_batches').selectAll();
  if (accountId !== null) query = query.where('account', '=', accountId);
  return query.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countSepaBatches(db: Db, accountId: number | null): Promise<number> {
  let query = db.selectFrom('sepa_batches').select((eb) => eb.fn.countAll<number>().as('n'));
  if (accountId !== null) query = query.where('account', '=', accountId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * A batch by id in the account (any account when null). `forUpdate` locks it until the
 * transaction ends (PostgreSQL; SQLite has one writer), so a return and the collection of the
 * same batch run one after the other.
 */
export function sepaBatchRow(db: Db, accountId: number | null, id: number, forUpdate = false) {
  let query = db.selectFrom('sepa_batches').selectAll().where('id', '=', id);
  if (accountId !== null) query = query.where('account', '=', accountId);
  if (forUpdate && isPostgres(db)) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The debits of these batches with their invoice numbers, in the order they were written. */
export function debitsOfBatches(db: Db, batchIds: number[]) {
  if (batchIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_debits')
    .innerJoin('invoices', 'invoices.id', 'sepa_debits.invoice')
    .selectAll('sepa_debits')
    .select('invoices.number as invoiceNumber')
    .where('sepa_debits.batch', 'in', batchIds)
    .orderBy('sepa_debits.id')
    .execute();
}

/** The latest debit of each of these invoices, with its batch's collection date. */
export async function latestDebitsOf(db: Db, invoiceIds: number[]) {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('sepa_debits')
    .innerJoin('sepa_batches', 'sepa_batches.id', 'sepa_debits.batch')
    .select([
      'sepa_debits.id',
      'sepa_debits.invoice',
      'sepa_debits.batch',
      'sepa_debits.state',
      'sepa_debits.returnReason',
      'sepa_batches.collectionDate',
    ])
    .where('sepa_debits.invoice', 'in', invoiceIds)
    .orderBy('sepa_debits.id')
    .execute();
  const latest = new Map<number, (typeof rows)[number]>();
  for (const row of rows) latest.set(row.invoice, row);
  return [...latest.values()];
}

/** Does this invoice have a debit in collection? Its batch, if so. */
export async function batchCollecting(db: Db, invoiceId: number): Promise<number | null> {
  const where = { invoice: invoiceId, state: 'inCollection' };
  const row = await selectFirstWhere(db, 'sepa_debits', where, { columns: ['batch'] });
  return row?.batch ?? null;
}

/** A debit's change (returned, collected) and its stamp. */
export async function writeDebit(
  trx: Db,
  id: number,
  values: Updateable<
    Pick<SepaDebitsTable, 'state' | 'returnReason' | 'returnNotes' | 'returnedDate' | 'payment'>
  >,
  at: string,
): Promise<void> {
  await updateWhere(trx, 'sepa_debits', { id }, { ...values, updatedAt: at });
}

/** Stamps the batch as changed (a debit of it came back). */
export async function touchBatch(
  trx: Db,
  batch: { id: number; lockVersion: number },
  stamp: { at: string; by: number | null },
) {
  const changes = { lockVersion: batch.lockVersion + 1, updatedAt: stamp.at, updatedBy: stamp.by };
  await updateWhere(trx, 'sepa_batches', { id: batch.id }, changes);
}

export async function deleteSepaBatch(trx: Db, id: number): Promise<void> {
  await deleteWhere(trx, 'sepa_debits', { batch: id });
  await deleteWhere(trx, 'sepa_batches', { id });
}

/** Removes the payment a collected debit recorded (the debit came back after all). */
export async function deletePaymentRow(trx: Db, paymentId: number): Promise<void> {
  await deleteWhere(trx, 'payments', { id: paymentId });
}
