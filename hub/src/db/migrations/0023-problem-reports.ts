import { bytesType, cascadeTo, columns, withCreation } from './columns.js';
import { migration } from './migration.js';
import { accountTable, index, linkTable, sideTable } from './tables.js';

/**
 * Problem reports (docs/DECISIONS.md, "Problem reports"): a member reports a broken door or
 * machine (`problem_reports`), optionally with one photo kept apart from the report
 * (`problem_report_photos`, so lists never read image bytes), and the members who look after
 * a resource type's machines (`resource_type_maintainers`) resolve them.
 */
export const problemReports = migration(async (db, dialect) => {
  await accountTable(db, 'problem_reports', dialect, { resource: 'resources.id' })
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
    .$call(
      columns({
        resolutionNote: 'text',
        createdAt: 'text not null',
        updatedAt: 'text not null',
      }),
    )
    .execute();
  await index(db, 'problem_reports', ['account', 'state']);
  await index(db, 'problem_reports', ['resource', 'state']);
  await index(db, 'problem_reports', ['member']);

  await withCreation(
    sideTable(db, 'problem_report_photos', 'report', 'problem_reports.id')
      // image/jpeg or image/png, checked by magic bytes; stored stripped of metadata.
      .addColumn('contentType', 'text', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('data', bytesType(dialect), (c) => c.notNull()),
  ).execute();

  await linkTable(
    db,
    'resource_type_maintainers',
    ['type', 'resource_types.id'],
    ['member', 'members.id'],
    (t) => withCreation(t.addColumn('account', 'integer', cascadeTo('accounts.id'))),
  );
});
