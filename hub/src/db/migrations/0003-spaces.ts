import { cascadeTo, columns, texts, withDefaults, withStamps } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, linkTable, withId } from './tables.js';

/** Opening hours, holidays, billing settings, training courses, member trainings and bookings. */
export const spaces = migration(async (db, dialect) => {
  await withId(db.schema.createTable('opening_hours'), dialect)
    .addColumn('space', 'integer', cascadeTo('spaces.id'))
    .$call(
      columns({
        dayOfWeek: 'integer not null',
        fromTime: 'text not null',
        untilTime: 'text not null',
      }),
    )
    .execute();
  await index(db, 'opening_hours', ['space', 'dayOfWeek']);

  // Holiday times are space-local wall times `YYYY-MM-DDTHH:MM`, compared as strings.
  await withStamps(
    accountTable(db, 'holidays', dialect, { space: 'spaces.id' })
      .$call(
        columns({
          title: 'text',
          fromDateTime: 'text not null',
          untilDateTime: 'text not null',
        }),
      )
      .addColumn('affects', 'text', (c) => c.notNull().defaultTo('all')),
  ).execute();
  await index(db, 'holidays', ['space', 'untilDateTime']);

  await withStamps(
    withId(db.schema.createTable('space_billing_settings'), dialect)
      .addColumn('space', 'integer', (c) => c.notNull().unique().references('spaces.id').onDelete('cascade'))
      .addColumn('account', 'integer', cascadeTo('accounts.id'))
      .$call(withDefaults('text', { currency: 'EUR', taxPercent: '0', invoiceNumberPrefix: '' }))
      .addColumn('nextInvoiceNumber', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('invoiceHeader', 'text')
      .addColumn('invoiceFooter', 'text')
      .addColumn('defaultInvoiceDeadline', 'integer', (c) => c.notNull().defaultTo(14))
      .addColumn('defaultInvoiceDeadlineUnit', 'text', (c) => c.notNull().defaultTo('day'))
      .$call(texts('statementName', 'stripeUser', 'stripePublicKey', 'stripeName'))
      .addColumn('stripeLivemode', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('enableSepa', 'integer', (c) => c.notNull().defaultTo(0))
      .$call(texts('sepaCreditorId', 'sepaIban', 'sepaAccountOwnerName'))
      .addColumn('sepaMandateText', 'text'),
  ).execute();
  // Spaces made before this migration get their settings now.
  const at = new Date().toISOString();
  const existing = await db.selectFrom('spaces').select(['id', 'account']).execute();
  for (const s of existing) {
    await db
      .insertInto('space_billing_settings')
      .values({ space: s.id, account: s.account, createdAt: at, updatedAt: at })
      .execute();
  }

  await withStamps(
    accountTable(db, 'training_courses', dialect)
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('notes', 'text')
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('defaultDuration', 'integer')
      .addColumn('defaultDurationUnit', 'text'),
  ).execute();
  await index(db, 'training_courses', ['account', 'id']);

  await linkTable(
    db,
    'training_course_resources',
    ['course', 'training_courses.id'],
    ['resource', 'resources.id'],
  );

  await withStamps(
    accountTable(db, 'member_trainings', dialect, { member: 'members.id' })
      .addColumn('trainingCourse', 'integer', (c) =>
        c.notNull().references('training_courses.id').onDelete('cascade'),
      )
      .addColumn('date', 'text', (c) => c.notNull())
      .$call(texts('fromDate', 'untilDate', 'notes')),
  ).execute();
  await index(db, 'member_trainings', ['member']);

  // Booking times are UTC instants (ISO strings with ms and Z), so string order is time order.
  await withStamps(
    accountTable(db, 'bookings', dialect, { resource: 'resources.id', member: 'members.id' })
      .addColumn('fromDateTime', 'text', (c) => c.notNull())
      .addColumn('untilDateTime', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('confirmed'))
      .addColumn('charged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notes', 'text'),
  ).execute();
  await index(db, 'bookings', ['account', 'id']);
  await index(db, 'bookings', ['resource', 'fromDateTime']);
  await index(db, 'bookings', ['member', 'fromDateTime']);
});
