import { sql } from 'kysely';
import { texts, withStamps } from './columns.js';
import { migration } from './migration.js';
import { index, withId } from './tables.js';

/**
 * The member sub-resources of the commercial interface: credits an admin grants by hand (no
 * member package behind them, with notes), scheduled changes of a member's data, the member's
 * device and its history, and the member's payment account and payment method.
 */
export const memberSubresources = migration(async (db, dialect) => {
  const account = (c: any) => c.notNull().references('accounts.id').onDelete('cascade');
  const member = (c: any) => c.notNull().references('members.id').onDelete('cascade');

  // A credit given by hand has no member package or package credit.
  if (dialect === 'postgres') {
    await sql`alter table member_credits alter column "memberPackage" drop not null`.execute(db);
    await sql`alter table member_credits alter column "packageCredit" drop not null`.execute(db);
    await db.schema.alterTable('member_credits').addColumn('notes', 'text').execute();
  } else {
    // SQLite cannot drop NOT NULL: rebuild the table (its documented way, with foreign keys
    // off so credit_uses keep their rows; migrations run outside a transaction here).
    await sql`pragma foreign_keys = off`.execute(db);
    try {
      await withStamps(
        withId(db.schema.createTable('member_credits_0013'), dialect)
          .addColumn('account', 'integer', account)
          .addColumn('member', 'integer', member)
          .addColumn('memberPackage', 'integer', (c) =>
            c.references('member_packages.id').onDelete('cascade'),
          )
          .addColumn('packageCredit', 'integer', (c) =>
            c.references('package_credits.id').onDelete('cascade'),
          )
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('resources', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('amount', 'text', (c) => c.notNull())
          .addColumn('remaining', 'text', (c) => c.notNull())
          .addColumn('fromDate', 'text', (c) => c.notNull())
          .addColumn('untilDate', 'text'),
      )
        .addColumn('notes', 'text')
        .execute();
      const columns = sql.raw(
        '"id", "account", "member", "memberPackage", "packageCredit", "scope", "resources", "amount", "remaining", "fromDate", "untilDate", "lockVersion", "createdAt", "updatedAt", "updatedBy"',
      );
      await sql`insert into member_credits_0013 (${columns}) select ${columns} from member_credits`.execute(
        db,
      );
      await sql`drop table member_credits`.execute(db);
      await sql`alter table member_credits_0013 rename to member_credits`.execute(db);
      await index(db, 'member_credits', ['member']);
      await index(db, 'member_credits', ['memberPackage', 'packageCredit', 'fromDate'], true);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error('member_credits rebuild broke foreign keys');
    } finally {
      await sql`pragma foreign_keys = on`.execute(db);
    }
  }

  // A change of a member's fields, scheduled for a date; `changes` ({field: [old, new]})
  // is written when the hub applies it.
  await withStamps(
    withId(db.schema.createTable('member_changes'), dialect)
      .addColumn('account', 'integer', account)
      .addColumn('member', 'integer', member)
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('changes', 'text')
      .addColumn('appliedAt', 'text'),
  ).execute();
  await index(db, 'member_changes', ['member']);
  await index(db, 'member_changes', ['appliedAt', 'date']);

  await withStamps(
    withId(db.schema.createTable('member_devices'), dialect)
      .addColumn('account', 'integer', account)
      .addColumn('member', 'integer', (c) => member(c).unique())
      .$call(texts('name', 'details', 'userAgent')),
  ).execute();

  await withStamps(
    withId(db.schema.createTable('member_device_changes'), dialect)
      .addColumn('account', 'integer', account)
      .addColumn('member', 'integer', member)
      .$call(texts('name', 'details', 'userAgent')),
  ).execute();
  await index(db, 'member_device_changes', ['member']);

  // JSON objects as the client wrote them (null: none).
  await withStamps(
    withId(db.schema.createTable('member_payment_details'), dialect)
      .addColumn('account', 'integer', account)
      .addColumn('member', 'integer', (c) => member(c).unique())
      .addColumn('paymentAccount', 'text')
      .addColumn('paymentMethod', 'text'),
  ).execute();
});
