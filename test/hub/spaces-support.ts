import type { TestHub } from '../support/hub.js';

/** Inserts a resource straight into the table (its REST routes belong to another area). */
export async function insertResource(
  t: TestHub,
  values: { space: number; name?: string; account?: number } & Record<string, unknown>,
): Promise<number> {
  const at = new Date().toISOString();
  const row = await t.hub.ctx.db
    .insertInto('resources')
    .values({
      account: t.owner.accountId,
      name: 'Laser cutter',
      switchOnCodeEncrypted: 'sealed-code',
      createdAt: at,
      updatedAt: at,
      updatedBy: null,
      ...values,
    } as any)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Creates a plain member of the owner's account and returns its id and an API token. */
export async function plainMember(t: TestHub, firstName: string, space?: number) {
  const owner = t.owner.token;
  const created = await t.call(owner, {
    method: 'POST',
    url: '/api/v1/members',
    payload: {
      firstName,
      emailAddress: `${firstName.toLowerCase()}@test.example`,
      ...(space ? { space } : {}),
    },
  });
  if (created.statusCode !== 201) throw new Error(`member: ${created.body}`);
  const memberId = created.json().id as number;
  const key = await t.call(owner, { method: 'POST', url: '/api/v1/api-keys', payload: { member: memberId } });
  const token = await t.call(owner, { method: 'GET', url: `/api/v1/api-keys/${key.json().id}/token` });
  return { memberId, token: token.json().token as string };
}

/** `YYYY-MM-DD` of today + n days (UTC). */
export function dayFromNow(n: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
