import type { AccessRule, RuleRequest } from './policy.js';
import { wrongCodesSince } from './access.repository.js';
import { once, ruleOrder } from './policy.js';

export const WRONG_CODE_LIMIT = 5;
export const ATTEMPT_WINDOW_MS = 10 * 60 * 1000;

/** Wrong switch-on codes the member entered for the resource within the window (once per request). */
export function wrongCodeCount(
  request: Pick<RuleRequest, 'reads' | 'memo' | 'resource' | 'member' | 'at'>,
): Promise<number> {
  return once(request, 'wrongCodes', async () => {
    if (!request.member) return 0;
    const since = new Date(request.at.getTime() - ATTEMPT_WINDOW_MS).toISOString();
    return wrongCodesSince(request.reads, request.resource.id, request.member.id, since);
  });
}

/** Rules every makerspace has: resource, member and key state, and too many failed attempts. */
export function coreRules(): AccessRule[] {
  return [
    {
      name: 'resourceState',
      order: ruleOrder.resourceState,
      adminsPass: false,
      // A lock reason (an admin's words, or a problem report's) says why it is out of use.
      check: ({ resource }) => {
        if (resource.state === 'active') return undefined;
        if (!resource.lockReason) return { deny: 'inactive' };
        return {
          deny: 'inactive',
          message: `This resource is out of use: ${resource.lockReason}`,
          details: { lockReason: resource.lockReason },
        };
      },
    },
    {
      // The machine's own limit (a laser that must cool down): for admins too.
      name: 'resourceMaxDuration',
      order: ruleOrder.resourceState,
      adminsPass: false,
      check: ({ resource }) => (resource.maxDuration ? { maxDuration: resource.maxDuration } : undefined),
    },
    {
      name: 'memberState',
      order: ruleOrder.memberState,
      adminsPass: false,
      check: ({ member }) => {
        if (!member) return { deny: 'unknownMember' };
        if (member.state === 'pending') {
          // A sign-up waiting for the space: Fabman's reason, with words that say what to wait for.
          return {
            deny: 'memberInactive',
            message: 'Your sign-up is waiting for approval by the space',
            details: { memberState: 'pending' },
          };
        }
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
      async check(request) {
        if (!request.member) return undefined;
        return (await wrongCodeCount(request)) >= WRONG_CODE_LIMIT ? { deny: 'tooManyAttempts' } : undefined;
      },
    },
  ];
}
