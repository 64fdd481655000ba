import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { index, withId, withStamps } from './helpers.js';

/** Accounts, spaces, members and API keys: the identity everything else hangs from. */
export function foundation(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await withStamps(
        withId(db.schema.createTable('accounts'), dialect)
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('locale', 'text', (c) => c.notNull().defaultTo('en'))
          .addColumn('trialEndDate', 'text')
          .addColumn('billingEmailAddress', 'text')
          .addColumn('billingCompany', 'text')
          .addColumn('inviteMembers', 'integer', (c) => c.notNull().defaultTo(0)),
      ).execute();

      await withStamps(
        withId(db.schema.createTable('spaces'), dialect)
          .addColumn('account', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('shortName', 'text')
          .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
          .addColumn('locale', 'text', (c) => c.notNull().defaultTo('en'))
          .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
          .addColumn('emailAddress', 'text')
          .addColumn('website', 'text')
          .addColumn('phone', 'text')
          .addColumn('infoText', 'text')
          .addColumn('calendarTokenHash', 'text')
          .addColumn('calendarTokenEncrypted', 'text')
          .addColumn('bookingSlotsPerHour', 'integer', (c) => c.notNull().defaultTo(2))
          .addColumn('bookingWindowMinHours', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bookingWindowMaxDays', 'integer', (c) => c.notNull().defaultTo(14))
          .addColumn('bookingLockInHours', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bookingMaxMinutesPerMemberDay', 'integer')
          .addColumn('bookingMaxMinutesPerMemberWeek', 'integer')
          .addColumn('bookingOpeningHours', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('bookingExclusiveMinutes', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bookingRefundable', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('bookingTermsOfService', 'text'),
      ).execute();
      await index(db, 'spaces', ['account']);

      await withStamps(
        withId(db.schema.createTable('members'), dialect)
          .addColumn('account', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
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
          .addColumn('dateOfBirth', 'text')
          .addColumn('gender', 'text')
          .addColumn('company', 'text')
          .addColumn('phone', 'text')
          .addColumn('address', 'text')
          .addColumn('address2', 'text')
          .addColumn('city', 'text')
          .addColumn('zip', 'text')
          .addColumn('countryCode', 'text')
          .addColumn('region', 'text')
          .addColumn('notes', 'text')
          .addColumn('taxExempt', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('hasBillingAddress', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('billingFirstName', 'text')
          .addColumn('billingLastName', 'text')
          .addColumn('billingCompany', 'text')
          .addColumn('billingAddress', 'text')
          .addColumn('billingAddress2', 'text')
          .addColumn('billingCity', 'text')
          .addColumn('billingZip', 'text')
          .addColumn('billingCountryCode', 'text')
          .addColumn('billingRegion', 'text')
          .addColumn('billingInvoiceText', 'text')
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
        withId(db.schema.createTable('api_keys'), dialect)
          .addColumn('account', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
          .addColumn('member', 'integer', (c) => c.notNull().references('members.id').onDelete('cascade'))
          .addColumn('label', 'text')
          // sha256 of the token for look-up; AES-GCM ciphertext for the read-back (DESIGN 4).
          .addColumn('tokenHash', 'text', (c) => c.notNull().unique())
          .addColumn('tokenEncrypted', 'text', (c) => c.notNull()),
      ).execute();
      await index(db, 'api_keys', ['account', 'member']);
    },
  };
}
