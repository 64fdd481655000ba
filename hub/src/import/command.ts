import type { Logger } from '@makerspace/shared';
import type { Clock, HubContext } from '../context.js';
import type { Storage } from '../db/database.js';
import { EventBus } from '../db/outbox.js';
import { ownersOf } from '../identity/members.repository.js';
import type { Caller } from '../kernel/caller.js';
import type { TokenBox } from '../secrets.js';
import { UsageError } from './usage-error.js';

/** What the CLI's import commands get from the face: storage, the secret box, a clock, a logger. */
export interface ImportEnvironment {
  storage: Storage;
  tokens: TokenBox;
  clock: Clock;
  logger: Logger;
}

/**
 * The context an import writes with: the hub's storage, secret box (new switch-on codes are
 * sealed with it), clock and event outbox (webhooks of the created records are delivered by the
 * running hub). Nothing long-running is started: the CLI may run beside a running hub.
 */
export function importContext(env: ImportEnvironment): HubContext {
  return {
    storage: env.storage,
    db: env.storage.db,
    tokens: env.tokens,
    logger: env.logger,
    clock: env.clock,
    events: new EventBus(env.storage.db, env.clock),
    charges: {
      chargeBooking: async () => {},
      chargeSession: async () => {},
      chargeSessionExtra: async () => {},
    },
  } as unknown as HubContext;
}

/**
 * The owner an import acts as: of the account given, else of the only account (several
 * accounts need `--account`). Writes are stamped with this member as their author.
 */
export async function importCaller(storage: Storage, account: number | undefined): Promise<Caller> {
  const owners = (await ownersOf(storage.db, account)).filter((o) => o.state === 'active');
  if (owners.length === 0)
    throw new UsageError(
      account === undefined
        ? 'no account with an active owner: run `makerspace-hub init` first'
        : `account ${account} has no active owner`,
    );
  const accounts = new Set(owners.map((o) => o.account));
  if (accounts.size > 1)
    throw new UsageError(`several accounts (${[...accounts].join(', ')}): add --account ID`);
  const owner = owners[0];
  return {
    memberId: owner.id,
    accountId: owner.account,
    spaceId: owner.space,
    privileges: 'owner',
    superuser: false,
    via: 'apiKey',
    apiKeyId: null,
    sessionId: null,
  };
}
