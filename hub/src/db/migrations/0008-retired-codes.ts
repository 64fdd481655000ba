import { cascadeTo, required } from './columns.js';
import { migration } from './migration.js';
import { index, withId } from './tables.js';

/**
 * Switch-on codes a resource had before (old QR stickers), kept as hashes so the machine page
 * can say "this sticker is out of date" instead of counting a wrong guess.
 */
export const retiredCodes = migration(async (db, dialect) => {
  await withId(db.schema.createTable('retired_switch_on_codes'), dialect)
    .addColumn('resource', 'integer', cascadeTo('resources.id'))
    .$call(required('text', 'codeHash', 'retiredAt'))
    .execute();
  await index(db, 'retired_switch_on_codes', ['resource', 'codeHash']);
});
