import { coreRules } from './core.rules.js';
import type { AccessRule } from './policy.js';
import { packageRules } from '../billing/rules.js';
import { spaceRules } from '../spaces/access.rules.js';

/**
 * Every rule of the access policy. Each area adds its rules here (spaces: opening hours,
 * holidays, bookings, training; packages: package, time table, prepaid balance).
 */
export function allRules(): AccessRule[] {
  return [...coreRules(), ...spaceRules(), ...packageRules()];
}
