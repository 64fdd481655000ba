import { columns, texts, withDefaults, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, sideTable, withId } from './tables.js';

/** Resource types, resources, their bridges, resource logs and the access-attempt counter. */
export const resources = migration(async (db, dialect) => {
  await withStamps(
    accountTable(db, 'resource_types', dialect).addColumn('name', 'text', (c) => c.notNull()),
  ).execute();
  await index(db, 'resource_types', ['account']);

  await withStamps(
    accountTable(db, 'resources', dialect)
      .addColumn('space', 'integer', (c) => c.notNull().references('spaces.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.references('resource_types.id').onDelete('set null'))
      .addColumn('controlType', 'text', (c) => c.notNull().defaultTo('machine'))
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .$call(
        withDefaults('integer', {
          requiresTraining: 0,
          canBeBooked: 0,
          mustBeBooked: 0,
          exclusiveUsage: 0,
          visibleForMembers: 1,
        }),
      )
      .$call(texts('description', 'notes', 'maintenanceNotes', 'displayTitle', 'safetyMessage'))
      .$call(
        columns({
          maxOfflineUsage: 'integer',
          deadManIntervalBusy: 'integer',
          deadManIntervalIdle: 'integer',
          idlePowerThreshold: 'text',
        }),
      )
      .addColumn('pricePerTimeBusy', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('pricePerTimeBusySeconds', 'integer', (c) => c.notNull().defaultTo(3600))
      .addColumn('pricePerTimeIdle', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('pricePerTimeIdleSeconds', 'integer', (c) => c.notNull().defaultTo(3600))
      .addColumn('pricePerUsage', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('pricingMinDurationSeconds', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('pricePerBooking', 'text', (c) => c.notNull().defaultTo('0'))
      .addColumn('pricePerBookingSeconds', 'integer', (c) => c.notNull().defaultTo(3600))
      .addColumn('metadata', 'text')
      // How long a door stays open on switch-on; machines ignore it.
      .addColumn('pulseSeconds', 'integer', (c) => c.notNull().defaultTo(5))
      // 'static': a random code printed as a QR sticker; 'totp': RFC 6238 code shown by the agent.
      .addColumn('codeMode', 'text', (c) => c.notNull().defaultTo('static'))
      .addColumn('switchOnCodeEncrypted', 'text', (c) => c.notNull())
      .addColumn('lastUsedLog', 'integer'),
  ).execute();
  await index(db, 'resources', ['account', 'id']);
  await index(db, 'resources', ['space']);

  await sideTable(db, 'bridges', 'resource', 'resources.id')
    .addColumn('serialNumber', 'text')
    .addColumn('heartbeatInterval', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('offline', 'integer', (c) => c.notNull().defaultTo(1))
    // The relay as the agent last reported it (retained `state` message).
    .addColumn('inUse', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('relaySince', 'text')
    .addColumn('apiKeyHash', 'text', (c) => c.notNull().unique())
    .addColumn('apiKeyEncrypted', 'text', (c) => c.notNull())
    .addColumn('createdBy', 'integer')
    .addColumn('configVersion', 'integer', (c) => c.notNull().defaultTo(1))
    .$call(texts('agentVersion', 'hardware', 'lastSeenAt'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();

  await accountTable(db, 'resource_logs', dialect)
    .addColumn('resource', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('member', 'integer')
    .addColumn('originalMember', 'integer')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('stoppedAt', 'text')
    .addColumn('stopType', 'text')
    .addColumn('idleDurationSeconds', 'integer')
    .$call(
      texts(
        'reason',
        'notes',
        'metadata',
        'extraChargeDescription',
        'extraChargePrice',
        'extraChargeTaxPercent',
      ),
    )
    // The id an agent gave a log it sent: stored once, however often it arrives.
    .addColumn('clientId', 'text', (c) => c.unique())
    .addColumn('offline', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lockVersion', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addColumn('updatedBy', 'integer')
    .execute();
  await index(db, 'resource_logs', ['account', 'id']);
  await index(db, 'resource_logs', ['resource', 'id']);
  await index(db, 'resource_logs', ['member', 'id']);

  // Failed attempts (wrong switch-on codes, unknown cards) for the tooManyAttempts rule.
  await withId(db.schema.createTable('access_attempts'), dialect)
    .addColumn('resource', 'integer', (c) => c.notNull())
    .addColumn('member', 'integer')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'access_attempts', ['resource', 'kind', 'at']);
});
