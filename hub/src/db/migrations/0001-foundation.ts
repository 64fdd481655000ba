import { texts, withDefaults, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, withId } from './tables.js';

/** Accounts, spaces, members and API keys: the identity everything else hangs from. */
export const foundation = migration(async (db, dialect) => {
  await withStamps(
    withId(db.schema.createTable('accounts'), dialect)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('locale', 'text', (c) => c.notNull().defaultTo('en'))
      .$call(texts('trialEndDate', 'billingEmailAddress', 'billingCompany'))
      .addColumn('inviteMembers', 'integer', (c) => c.notNull().defaultTo(0)),
  ).execute();

  await withStamps(
    accountTable(db, 'spaces', dialect)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('shortName', 'text')
      .$call(withDefaults('text', { timezone: 'UTC', locale: 'en', state: 'active' }))
      .$call(
        texts('emailAddress', 'website', 'phone', 'infoText', 'calendarTokenHash', 'calendarTokenEncrypted'),
      )
      .$call(
        withDefaults('integer', {
          bookingSlotsPerHour: 2,
          bookingWindowMinHours: 0,
          bookingWindowMaxDays: 14,
          bookingLockInHours: 0,
        }),
      )
      .addColumn('bookingMaxMinutesPerMemberDay', 'integer')
      .addColumn('bookingMaxMinutesPerMemberWeek', 'integer')
      .$call(
        withDefaults('integer', {
          bookingOpeningHours: 1,
          bookingExclusiveMinutes: 0,
          bookingRefundable: 1,
        }),
      )
      .addColumn('bookingTermsOfService', 'text'),
  ).execute();
  await index(db, 'spaces', ['account']);

  await withStamps(
    accountTable(db, 'members', dialect)
      .addColumn('space', 'integer', (c) => c.notNull().references('spaces.id'))
      .addColumn('memberNumber', 'text')
      .addColumn('firstName', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('lastName', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('emailAddress', 'text')
      // Lower-cased e-mail address: unique per account whatever the spelling.
      .addColumn('emailKey', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('privileges', 'text', (c) => c.notNull().defaultTo('member'))
      .addColumn('superuser', 'integer', (c) => c.notNull().defaultTo(0))
      .$call(
        texts(
          'dateOfBirth',
          'gender',
          'company',
          'phone',
          'address',
          'address2',
          'city',
          'zip',
          'countryCode',
          'region',
          'notes',
        ),
      )
      .addColumn('taxExempt', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('hasBillingAddress', 'integer', (c) => c.notNull().defaultTo(0))
      .$call(
        texts(
          'billingFirstName',
          'billingLastName',
          'billingCompany',
          'billingAddress',
          'billingAddress2',
          'billingCity',
          'billingZip',
          'billingCountryCode',
          'billingRegion',
          'billingInvoiceText',
        ),
      )
      .addColumn('requireUpfrontPayment', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('upfrontMinimumBalance', 'text')
      .addColumn('metadata', 'text')
      .addColumn('allowLogin', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('language', 'text'),
  ).execute();
  await index(db, 'members', ['account', 'id']);
  await index(db, 'members', ['account', 'emailKey'], true);
  await index(db, 'members', ['account', 'lastName']);

  await withStamps(
    accountTable(db, 'api_keys', dialect, { member: 'members.id' })
      .addColumn('label', 'text')
      // sha256 of the token for look-up; AES-GCM ciphertext for the read-back (DESIGN 4).
      .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
      .addColumn('tokenEncrypted', 'text', (c) => c.notNull()),
  ).execute();
  await index(db, 'api_keys', ['account', 'member']);
});
