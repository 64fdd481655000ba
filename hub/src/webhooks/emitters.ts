import type { WebhookEventType } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import { type ChargeRow, chargeRecord } from '../billing/charges.js';
import { type InvoiceRow, invoiceRecord } from '../billing/invoices.js';
import { type MemberPackageRow, memberPackageRecord, packageRecord } from '../billing/packages.js';
import type { HubContext } from '../context.js';
import { type Db, parseJson } from '../db/crud.js';
import type { MemberCreditsTable } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { type MemberRow, memberRecord } from '../identity/members.js';
import { type BridgeRow, bridgeRecord } from '../resources/bridges.js';
import { type ResourceLogRow, resourceLogRecord } from '../resources/resource-logs.js';
import { lastUsedOf, type ResourceRow, resourceRecord } from '../resources/resources.js';
import { type BookingRow, bookingRecord } from '../spaces/bookings.service.js';
import { type MemberTrainingRow, memberTrainingRecord } from '../spaces/training.repository.js';
import { emitEvent } from './events.js';

/**
 * The events of every area, each written with the transaction (`db`) of its change. Details are
 * built only when some webhook of the account wants the category (emitEvent calls them lazily),
 * so a change nobody listens to costs one select.
 */

// Webhook payloads leave the hub: they carry the record as a plain member would read it, so a
// resource's switch-on code (shown to admins in the API) is never sent to a receiver.
const receiverView: Caller = {
  memberId: 0,
  accountId: 0,
  spaceId: 0,
  privileges: 'member',
  superuser: false,
  via: 'apiKey',
  apiKeyId: null,
  sessionId: null,
};

async function resourceRow(db: Db, id: number): Promise<ResourceRow | undefined> {
  return db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirst();
}

async function memberRow(db: Db, id: number | null): Promise<MemberRow | undefined> {
  if (id === null) return undefined;
  return db.selectFrom('members').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function resourceEventRecord(db: Db, row: ResourceRow) {
  const lastUsed = await lastUsedOf(db, [row.id]);
  // The context is read only for the switch-on code, which the receiver view never gets.
  return {
    ...resourceRecord(row, undefined as unknown as HubContext, receiverView),
    lastUsed: lastUsed.get(row.id) ?? null,
  };
}

const memberOrNull = (row: MemberRow | undefined) => (row ? memberRecord(row) : null);

export function emitResource(
  db: Db,
  type: Extract<WebhookEventType, `resource_${string}`>,
  row: ResourceRow,
) {
  return emitEvent(db, {
    account: row.account,
    type,
    details: async () => ({ resource: await resourceEventRecord(db, row) }),
  });
}

export function emitBridge(
  db: Db,
  type: Extract<WebhookEventType, `bridge_${string}`>,
  bridge: BridgeRow,
  resource: ResourceRow,
) {
  return emitEvent(db, {
    account: resource.account,
    type,
    details: async () => ({
      bridge: bridgeRecord(bridge),
      resource: await resourceEventRecord(db, resource),
    }),
  });
}

/** resourceLog_created/updated; pass the resource and member rows when the caller has them. */
export function emitResourceLog(
  db: Db,
  type: Extract<WebhookEventType, `resourceLog_${string}`>,
  log: ResourceLogRow,
  known: { resource?: ResourceRow; member?: MemberRow | null } = {},
) {
  return emitEvent(db, {
    account: log.account,
    type,
    details: async () => {
      const resource = known.resource ?? (await resourceRow(db, log.resource));
      const member = known.member !== undefined ? known.member : await memberRow(db, log.member);
      return {
        log: resourceLogRecord(log),
        resource: resource ? await resourceEventRecord(db, resource) : null,
        member: memberOrNull(member ?? undefined),
      };
    },
  });
}

export function emitBooking(
  db: Db,
  type: Extract<WebhookEventType, `booking_${string}`>,
  booking: BookingRow,
) {
  return emitEvent(db, {
    account: booking.account,
    type,
    details: async () => {
      const resource = await resourceRow(db, booking.resource);
      return {
        booking: bookingRecord(booking),
        resource: resource ? await resourceEventRecord(db, resource) : null,
        member: memberOrNull(await memberRow(db, booking.member)),
      };
    },
  });
}

export function emitMemberTraining(
  db: Db,
  type: Extract<WebhookEventType, `memberTraining_${string}`>,
  row: MemberTrainingRow,
) {
  return emitEvent(db, {
    account: row.account,
    type,
    details: async () => ({
      memberTraining: memberTrainingRecord(row),
      member: memberOrNull(await memberRow(db, row.member)),
    }),
  });
}

export function emitMemberPackage(
  db: Db,
  type: Extract<WebhookEventType, `memberPackage_${string}`>,
  row: MemberPackageRow,
) {
  return emitEvent(db, {
    account: row.account,
    type,
    details: async () => {
      const pkg = await db
        .selectFrom('packages')
        .selectAll()
        .where('id', '=', row.package)
        .executeTakeFirst();
      return {
        memberPackage: memberPackageRecord(row),
        member: memberOrNull(await memberRow(db, row.member)),
        package: pkg ? packageRecord(pkg) : null,
      };
    },
  });
}

export type MemberCreditRow = Selectable<MemberCreditsTable>;

/** A member's credit from a package credit (what it gave, what is left, when it applies). */
export function memberCreditRecord(row: MemberCreditRow) {
  return {
    id: row.id,
    account: row.account,
    member: row.member,
    memberPackage: row.memberPackage,
    packageCredit: row.packageCredit,
    scope: row.scope,
    resources: parseJson<unknown[]>(row.resources) ?? [],
    amount: row.amount,
    remaining: row.remaining,
    fromDate: row.fromDate,
    untilDate: row.untilDate,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** memberCredit_created when package billing grants a credit; _updated when a charge spends from it. */
export function emitMemberCredit(
  db: Db,
  type: Extract<WebhookEventType, `memberCredit_${string}`>,
  row: MemberCreditRow,
) {
  return emitEvent(db, {
    account: row.account,
    type,
    details: async () => ({
      memberCredit: memberCreditRecord(row),
      member: memberOrNull(await memberRow(db, row.member)),
    }),
  });
}

/** memberCredit_deleted for every member credit that a delete of its source is about to take along. */
export async function emitCreditsDeleted(db: Db, source: 'memberPackage' | 'packageCredit', id: number) {
  const rows = await db
    .selectFrom('member_credits')
    .selectAll()
    .where(source, '=', id)
    .orderBy('id')
    .execute();
  for (const row of rows) await emitMemberCredit(db, 'memberCredit_deleted', row);
}

export function emitCharge(db: Db, type: Extract<WebhookEventType, `charge_${string}`>, row: ChargeRow) {
  return emitEvent(db, {
    account: row.account,
    type,
    details: async () => ({
      charge: chargeRecord(row),
      member: memberOrNull(await memberRow(db, row.member)),
    }),
  });
}

/** charge_updated for each of these charges (they went on an invoice or came off one). */
export async function emitChargesUpdated(db: Db, ids: number[]) {
  if (ids.length === 0) return;
  const rows = await db.selectFrom('charges').selectAll().where('id', 'in', ids).orderBy('id').execute();
  for (const row of rows) await emitCharge(db, 'charge_updated', row);
}

/**
 * invoice_created/updated with the invoice as it is now in `db`, its charges (or the given ones:
 * a cancelled invoice lists the charges it had) and its member.
 */
export function emitInvoice(
  db: Db,
  type: Extract<WebhookEventType, `invoice_${string}`>,
  invoice: Pick<InvoiceRow, 'id' | 'account'>,
  chargeIds?: number[],
) {
  return emitEvent(db, {
    account: invoice.account,
    type,
    details: async () => {
      const row = await db
        .selectFrom('invoices')
        .selectAll()
        .where('id', '=', invoice.id)
        .executeTakeFirstOrThrow();
      const charges = await db
        .selectFrom('charges')
        .selectAll()
        .$if(chargeIds === undefined, (q) => q.where('invoice', '=', row.id))
        .$if(chargeIds !== undefined, (q) => q.where('id', 'in', chargeIds?.length ? chargeIds : [0]))
        .orderBy('dateTime')
        .orderBy('id')
        .execute();
      return {
        invoice: await invoiceRecord(db, row),
        charges: charges.map(chargeRecord),
        member: memberOrNull(await memberRow(db, row.member)),
      };
    },
  });
}
