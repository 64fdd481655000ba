import type { AccessRule } from '../access/policy.js';
import { ruleOrder } from '../access/policy.js';
import { occupancy, occupancyLimitOf } from './presence.repository.js';

/**
 * A full space refuses another entry (`occupancyFull`): at an entrance of a space with an
 * `occupancyLimit`, a member who is not checked in is refused once as many are in as the limit
 * allows. A member who is in passes (their tap checks them out). Admins and owners pass.
 */
export function presenceRules(): AccessRule[] {
  return [
    {
      name: 'occupancy',
      order: ruleOrder.tooManyAttempts - 5,
      adminsPass: true,
      async check({ resource, member, reads }) {
        if (!member || resource.entrance !== 1) return undefined;
        const limit = await occupancyLimitOf(reads, resource.space);
        if (limit === null) return undefined;
        const { count, memberIn } = await occupancy(reads, resource.space, member.id);
        return !memberIn && count >= limit ? { deny: 'occupancyFull' } : undefined;
      },
    },
  ];
}
