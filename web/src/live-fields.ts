import type { ResourceStatusField } from './api';

/**
 * What the members' pages (home, machine page) show of a resource's status, and so all their
 * live channel asks for (`field=...`): the bridge's diagnostics (`lastSeenAt`, which moves at
 * every message from the bridge, and the agent's version) are for the admin pages, which ask for
 * every field. A member page that shows another field adds it here.
 */
export const MEMBER_STATUS_FIELDS: readonly ResourceStatusField[] = [
  'bridge',
  'online',
  'relay',
  'session',
  'inputs',
  'idleWarning',
];
