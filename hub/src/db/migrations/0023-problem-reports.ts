import { accountTable, cascadeTo, index } from './helpers.js';
import { migration } from './migration.js';

/**
 * Problem reports (docs/DECISIONS.md, "Problem reports"): a member reports a broken door or
 * machine (`problem_reports`), optionally with one photo kept apart from the report
 * (`problem_report_photos`, so lists never read image bytes), and the members who look after
 * a resource type's machines (`resource_type_maintainers`) resolve them.
 */
export const problemReports = migration(async (db, dialect) => {
  await accountTable(db, 'problem_reports', dialect)
    .addColumn('resource', 'integer', cascadeTo('resources.id'))
    .addColumn('member', 'integer', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('description', 'text', (c) => c.notNull())
    // info or unsafe
    .addColumn('severity', 'text', (c) => c.notNull())
    // open or resolved
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('open'))
    // 1 while (or since) the resource is out of use because of this report.
    .addColumn('lockedResource', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unlockedResource', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('resolvedAt', 'text')
    .addColumn('resolvedBy', 'integer', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('resolutionNote', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await index(db, 'problem_reports', ['account', 'state']);
  await index(db, 'problem_reports', ['resource', 'state']);
  await index(db, 'problem_reports', ['member']);

  await db.schema
    .createTable('problem_report_photos')
    .addColumn('report', 'integer', (c) =>
      c.primaryKey().references('problem_reports.id').onDelete('cascade'),
    )
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    // image/jpeg or image/png, checked by magic bytes; stored stripped of metadata.
    .addColumn('contentType', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('createdBy', 'integer')
    .execute();

  await db.schema
    .createTable('resource_type_maintainers')
    .addColumn('type', 'integer', cascadeTo('resource_types.id'))
    .addColumn('member', 'integer', cascadeTo('members.id'))
    .addColumn('account', 'integer', cascadeTo('accounts.id'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('createdBy', 'integer')
    .addPrimaryKeyConstraint('resource_type_maintainers_pk', ['type', 'member'])
    .execute();
  await index(db, 'resource_type_maintainers', ['member']);
});
