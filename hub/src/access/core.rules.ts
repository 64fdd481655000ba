import type { AccessRule } from './policy.js';
import { ruleOrder } from './policy.js';

export const WRONG_CODE_LIMIT = 5;
export const ATTEMPT_WINDOW_MS = 10 * 60 * 1000;

/** Rules every makerspace has: resource, member and key state, and too many failed attempts. */
export function coreRules(): AccessRule[] {
  return [
    {
      name: 'resourceState',
      order: ruleOrder.resourceState,
      adminsPass: false,
      check: ({ resource }) => (resource.state !== 'active' ? { deny: 'inactive' } : undefined),
    },
    {
      name: 'memberState',
      order: ruleOrder.memberState,
      adminsPass: false,
      check: ({ member }) => {
        if (!member) return { deny: 'unknownMember' };
        return member.state !== 'active' ? { deny: 'memberInactive' } : undefined;
      },
    },
    {
      name: 'keyState',
      order: ruleOrder.keyState,
      adminsPass: false,
      check: ({ key }) => (key && key.state !== 'active' ? { deny: 'keyInactive' } : undefined),
    },
    {
      name: 'tooManyAttempts',
      order: ruleOrder.tooManyAttempts,
      adminsPass: false,
      async check({ db, resource, member, at }) {
        if (!member) return undefined;
        const since = new Date(at.getTime() - ATTEMPT_WINDOW_MS).toISOString();
        const row = await db
          .selectFrom('access_attempts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('resource', '=', resource.id)
          .where('member', '=', member.id)
          .where('kind', '=', 'wrongCode')
          .where('at', '>', since)
          .executeTakeFirstOrThrow();
        return Number(row.n) >= WRONG_CODE_LIMIT ? { deny: 'tooManyAttempts' } : undefined;
      },
    },
  ];
}
