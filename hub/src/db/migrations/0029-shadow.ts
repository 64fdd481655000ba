import { columns } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index } from './tables.js';

/**
 * Shadow mode (docs/MOVING.md): each decision another access server logged (allowed or denied),
 * with what our access policy decides for the same member, resource and moment. One row per
 * log of the other server (`source`, `remoteLog`): a run that starts again skips what it compared.
 */
export const shadow = migration(
  async (db, dialect) => {
    await accountTable(db, 'shadow_decisions', dialect)
      .$call(
        columns({
          source: 'text not null',
          remoteLog: 'integer not null',
          at: 'text not null',
          remoteResource: 'integer not null',
          remoteMember: 'integer',
          resource: 'integer',
          member: 'integer',
          theirs: 'text not null',
          theirReason: 'text',
          ours: 'text not null',
          ourReason: 'text',
          ourMessage: 'text',
          agrees: 'integer not null',
          checkedAt: 'text not null',
        }),
      )
      .execute();
    await index(db, 'shadow_decisions', ['source', 'remoteLog'], true);
    await index(db, 'shadow_decisions', ['account', 'source', 'at']);
  },
  async (db) => {
    await db.schema.dropTable('shadow_decisions').execute();
  },
);
