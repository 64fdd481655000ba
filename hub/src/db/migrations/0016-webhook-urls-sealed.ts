import type { Kysely, Migration } from 'kysely';
import type { TokenBox } from '../../secrets.js';
import type { DialectName } from '../database.js';

/** The host of a webhook URL (lower case), or '' when it cannot be read. */
export function webhookUrlHost(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return '';
  }
}

/**
 * Webhook URLs carry secrets (`?secret=`, a chat service's token in the path): they are sealed
 * with the hub's secret key like the other stored secrets (`urlEncrypted`), and only the host is
 * kept in clear (`urlHost`), for search and ordering. Existing rows are sealed here, which needs
 * the key: `tokens` gives it (HUB_SECRET_FILE).
 */
export function webhookUrlsSealed(_dialect: DialectName, tokens?: () => TokenBox): Migration {
  return {
    async up(db: Kysely<any>) {
      // Before any change: SQLite does not roll back schema changes of a failed migration.
      const rows: { id: number; url: string }[] = await db
        .selectFrom('webhooks')
        .select(['id', 'url'])
        .orderBy('id')
        .execute();
      let sealed: { id: number; urlEncrypted: string; urlHost: string }[] = [];
      if (rows.length > 0) {
        if (!tokens)
          throw new Error('sealing the stored webhook URLs needs the hub secret (HUB_SECRET_FILE)');
        const box = tokens();
        sealed = rows.map((r) => ({
          id: r.id,
          urlEncrypted: box.seal(r.url),
          urlHost: webhookUrlHost(r.url),
        }));
      }
      await db.schema
        .alterTable('webhooks')
        .addColumn('urlEncrypted', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('webhooks')
        .addColumn('urlHost', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      for (const { id, ...values } of sealed)
        await db.updateTable('webhooks').set(values).where('id', '=', id).execute();
      await db.schema.alterTable('webhooks').dropColumn('url').execute();
    },
  };
}
