import type { WebhookEventType } from '@makerspace/shared';
import type { Selectable } from 'kysely';
import { type Db, parseJson } from '../db/crud.js';
import { emitEvent } from '../db/outbox.js';
import type { MemberCreditsTable } from '../db/schema.js';
import { memberEventRecord } from '../identity/members.js';

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
      member: await memberEventRecord(db, row.member),
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
