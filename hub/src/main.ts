import { ConfigError, createLogger, type Logger, SystemdNotifier } from '@makerspace/shared';
import { type Hub, openHub } from './hub.js';
import { hasAnyAccount } from './db/hub-meta.js';
import { createAccountWithOwner } from './identity/bootstrap.js';
import { type HubSettings, settingsFromEnv } from './settings.js';
import { describeDatabase, startupFailure } from './startup.js';
import { writeFirstToken } from './first-token.js';

/**
 * `makerspace-hub serve`: opens the database, listens, creates a first account on an empty
 * database, and shuts down gracefully on SIGTERM/SIGINT (in-flight requests finish first).
 * A start that fails prints one line naming the cause and the fix, closes whatever had started
 * and exits non-zero. Resolves -1: the process keeps running until a signal.
 */
export async function serve(): Promise<number> {
  let settings: HubSettings | null = null;
  let logger: Logger | null = null;
  let hub: Hub | null = null;
  try {
    settings = settingsFromEnv();
    logger = createLogger({ name: 'makerspace-hub', level: settings.logLevel });
    logger.info(
      { database: describeDatabase(settings.databaseUrl) },
      `database: ${describeDatabase(settings.databaseUrl)}`,
    );
    hub = await openHub(settings, { logger });
    return await run(settings, logger, hub);
  } catch (err) {
    const line = startupFailure(err, settings);
    // Configuration errors exit 2 (as for the other commands), everything else 1; whatever
    // happens while closing, the process ends within 2 s.
    const code = err instanceof ConfigError ? 2 : 1;
    setTimeout(() => process.exit(code), 1_500);
    logger?.error({ err }, line);
    process.stderr.write(`makerspace-hub: ${line}\n`);
    await hub?.close().catch(() => {});
    process.exit(code);
  }
}

async function run(settings: HubSettings, logger: Logger, hub: Hub): Promise<number> {
  const { ctx } = hub;
  // Signals are handled from here on: a SIGTERM right after the first token was printed still
  // shuts down gracefully.
  let notifier: SystemdNotifier | null = null;
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
      await notifier?.stopping();
      await notifier?.stop();
      await hub.close();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Listen first: a port in use then ends the start before a first account (and its token) is
  // made.
  const { httpPort, mqttPort } = await hub.listen();
  logger.info({ port: httpPort, host: settings.httpHost }, 'HTTP API listening');
  if (mqttPort !== null) logger.info({ port: mqttPort, host: settings.mqttHost }, 'MQTT broker listening');
  logger.info({ path: '/mqtt', port: httpPort }, 'MQTT over WebSocket listening');

  if (!(await hasAnyAccount(ctx.db))) {
    const created = await createAccountWithOwner(
      ctx.db,
      ctx.tokens,
      {
        accountName: 'My makerspace',
        emailAddress: process.env.HUB_OWNER_EMAIL ?? 'owner@makerspace.invalid',
        timezone: process.env.TZ?.includes('/') ? process.env.TZ : 'UTC',
      },
      ctx.clock.now().toISOString(),
    );
    const file = writeFirstToken(settings.dataDir, created.token);
    logger.info(
      { accountId: created.accountId, memberId: created.memberId, tokenFile: file },
      'created the first account and its owner; its API token is in the token file',
    );
    const base = settings.publicUrl ?? `http://localhost:${httpPort}`;
    // The token is a secret and never goes to the log. It is printed only on a terminal: under
    // systemd or with output redirected, stdout is kept (the journal, a file), so only the
    // 0600 file holds it then.
    const shown = process.stdout.isTTY === true;
    const bearer = shown ? created.token : `$(cat ${file})`;
    process.stdout.write(
      [
        '',
        'First start: created an account with an owner member and an API key.',
        ...(shown
          ? [
              `  API token (shown only now): ${created.token}`,
              `  (also saved in ${file}, readable by this user only; delete it once you have the token)`,
            ]
          : [
              `  API token: in ${file}, readable by this user only (not printed: this output is`,
              '  not a terminal and may be kept in a log). Read it, then delete the file.',
            ]),
        '  Try it:',
        `    curl -H "Authorization: Bearer ${bearer}" ${base}/api/v1/user/me`,
        `  API docs: ${base}/api/v1/docs`,
        `  Web app: ${base}/  The owner's first sign-in link (it asks for a password):`,
        `    npx makerspace-hub sign-in-link --member ${created.memberId}   (with this hub's environment)`,
        '',
      ].join('\n'),
    );
  }

  // systemd (Type=notify): ready once both listeners are up; the watchdog is fed from the event
  // loop and only while the database and the broker work, so a hub stuck in a busy loop or with
  // a lost database gets restarted.
  notifier = new SystemdNotifier({ logger, healthy: () => hub.healthy() });
  await notifier.start();
  await notifier.ready('serving');

  return -1;
}
