import { randomBytes } from 'node:crypto';
import { createLogger } from '@makerspace/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../hub/src/clock.js';
import { createStorage, type Storage } from '../../hub/src/db/database.js';
import { migrateToLatest } from '../../hub/src/db/migrate.js';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { insertNotification } from '../../hub/src/notifications/notifications.repository.js';
import { defaultNotificationTiming, NotificationWorker } from '../../hub/src/notifications/worker.js';
import { TokenBox } from '../../hub/src/secrets.js';
import { SmtpMailer } from '../../hub/src/sign-in/mailer.js';
import { freshDatabase, type TestDatabase } from '../support/dialects.js';
import { type MailCatcher, startMailCatcher } from '../support/mail.js';
import { readMail, sleep } from './notifications-support.js';

/**
 * Several hubs on one PostgreSQL database each run a notification worker, each with a pool of
 * its own as a hub process would; they race for the same mails.
 */
const pgUrl = process.env.TEST_DATABASE_URL;
const describePg = pgUrl ? describe : describe.skip;
const title = pgUrl
  ? 'mail notifications with several hubs on one PostgreSQL database'
  : 'mail notifications with several hubs on one PostgreSQL database skipped: TEST_DATABASE_URL is not set';

describePg(title, () => {
  let db: TestDatabase;
  let main: Storage;
  let mail: MailCatcher;
  const logger = createLogger({ name: 'test-notification-claims', level: 'silent' });

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    main = createStorage({ url: db.url, schema: db.schema });
    await migrateToLatest(main.db, 'postgres');
    mail = await startMailCatcher();
  });
  afterAll(async () => {
    await main?.close();
    await db?.dispose();
    await mail?.close();
  });

  it('three hubs send each of 60 mails once, also those the mail server refused at first', async () => {
    const owner = await createAccountWithOwner(main.db, new TokenBox(randomBytes(32)), {
      accountName: 'Cluster lab',
      emailAddress: 'owner@cluster.example',
    });
    const at = new Date().toISOString();
    for (let i = 1; i <= 60; i++) {
      await insertNotification(main.db, {
        account: owner.accountId,
        member: owner.memberId,
        kind: 'invoiceIssued',
        params: { invoiceId: i, number: `N-${i}`, total: '1.00', currency: 'EUR' },
        createdAt: at,
      });
    }
    // The first few attempts are refused: their retries may be taken by any hub.
    mail.failing(true);
    const hubs: { worker: NotificationWorker; storage: Storage; mailer: SmtpMailer }[] = [];
    const sentBy = [0, 0, 0];
    for (let n = 0; n < 3; n++) {
      const storage = createStorage({ url: db.url, schema: db.schema, poolSize: 4 });
      const mailer = new SmtpMailer(mail.url, 'Cluster lab <hub@cluster.example>');
      const worker = new NotificationWorker({
        db: storage.db,
        dialect: 'postgres',
        mailer: {
          send: async (message) => {
            await mailer.send(message);
            sentBy[n]++;
          },
        },
        logger,
        clock: systemClock,
        timing: { ...defaultNotificationTiming, pollIntervalMs: 15, retryBaseMs: 30, retryMaxMs: 60 },
        linkBase: () => 'http://hub.test',
      });
      hubs.push({ worker, storage, mailer });
    }
    try {
      await Promise.all(hubs.map((h) => h.worker.start()));
      // Until some attempts have been refused.
      for (let i = 0; i < 400; i++) {
        const refused = await main.db
          .selectFrom('notifications')
          .select('id')
          .where('lastError', 'is not', null)
          .execute();
        if (refused.length >= 3) break;
        await sleep(25);
      }
      mail.failing(false);
      const deadline = Date.now() + 30_000;
      while (mail.mails.length < 60 && Date.now() < deadline) await sleep(25);
      await sleep(500);
    } finally {
      for (const h of hubs) {
        await h.worker.stop();
        h.mailer.close();
        await h.storage.close();
      }
    }
    const subjects = mail.mails.map((m) => readMail(m).subject);
    expect(subjects).toHaveLength(60);
    expect(new Set(subjects).size).toBe(60);
    // The hubs shared the work.
    expect(sentBy.filter((count) => count > 0).length).toBeGreaterThan(1);
    const states = await main.db
      .selectFrom('notifications')
      .select(['state', 'attempts'])
      .where('account', '=', owner.accountId)
      .execute();
    expect(states.filter((s) => s.state !== 'sent')).toEqual([]);
    // Some were refused first and retried: the retries were sent once too.
    expect(Math.max(...states.map((s) => s.attempts))).toBeGreaterThan(1);
  });
});
