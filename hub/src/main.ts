import { createLogger, SystemdNotifier } from '@makerspace/shared';
import { createAccountWithOwner } from './identity/bootstrap.js';
import { openHub } from './hub.js';
import { settingsFromEnv } from './settings.js';

/**
 * `makerspace-hub serve`: opens the database, creates a first account on an empty one, listens,
 * and shuts down gracefully on SIGTERM/SIGINT (in-flight requests finish first).
 * Resolves -1: the process keeps running until a signal.
 */
export async function serve(): Promise<number> {
  const settings = settingsFromEnv();
  const logger = createLogger({ name: 'makerspace-hub', level: settings.logLevel });
  const hub = await openHub(settings, { logger });
  const { ctx } = hub;

  const accounts = await ctx.db.selectFrom('accounts').select('id').limit(1).execute();
  let firstToken: string | null = null;
  let ownerId = 0;
  if (accounts.length === 0) {
    const created = await createAccountWithOwner(ctx.db, ctx.tokens, {
      accountName: 'My makerspace',
      emailAddress: process.env.HUB_OWNER_EMAIL ?? 'owner@makerspace.invalid',
      timezone: process.env.TZ?.includes('/') ? process.env.TZ : 'UTC',
    });
    logger.info(
      { accountId: created.accountId, memberId: created.memberId },
      'created the first account and its owner',
    );
    firstToken = created.token;
    ownerId = created.memberId;
  }

  const { httpPort, mqttPort } = await hub.listen();
  logger.info({ port: httpPort, host: settings.httpHost }, 'HTTP API listening');
  if (mqttPort !== null) logger.info({ port: mqttPort, host: settings.mqttHost }, 'MQTT broker listening');
  logger.info({ path: '/mqtt', port: httpPort }, 'MQTT over WebSocket listening');

  if (firstToken) {
    const base = settings.publicUrl ?? `http://localhost:${httpPort}`;
    // Printed once, on the terminal only: the token is a secret and never goes to the log.
    process.stdout.write(
      [
        '',
        'First start: created an account with an owner member and an API key.',
        `  API token (shown only now): ${firstToken}`,
        '  Try it:',
        `    curl -H "Authorization: Bearer ${firstToken}" ${base}/api/v1/user/me`,
        `  API docs: ${base}/api/v1/docs`,
        `  Web app: ${base}/  (sign in with a one-use link:`,
        `    curl -X POST -H "Authorization: Bearer ${firstToken}" ${base}/api/v1/members/${ownerId}/sign-in-link )`,
        '',
      ].join('\n'),
    );
  }

  // systemd (Type=notify): ready once both listeners are up; the watchdog is fed from the event
  // loop and only while the database and the broker work, so a hub stuck in a busy loop or with
  // a lost database gets restarted.
  const notifier = new SystemdNotifier({ logger, healthy: () => hub.healthy() });
  await notifier.start();
  await notifier.ready('serving');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 15_000);
    timer.unref();
    try {
      await notifier.stopping();
      await notifier.stop();
      await hub.close();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  return -1;
}
