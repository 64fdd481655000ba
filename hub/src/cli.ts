#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, createLogger } from '@makerspace/shared';
import { backupDatabase, restoreDatabase } from './db/backup.js';
import { createStorage } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { checkSecretKey } from './secrets.js';
import { systemClock } from './context.js';
import { createAccountWithOwner } from './identity/bootstrap.js';
import { membersNamed, writeSuperuser } from './identity/members.repository.js';
import { serve } from './main.js';
import { loadSecret, TokenBox } from './secrets.js';
import { type HubSettings, settingsFromEnv } from './settings.js';
import { startupFailure } from './startup.js';
import { insertApiKey } from './identity/api-keys.js';
import { createLink, defaultInvitationDays } from './sign-in/links.js';
import { canSignIn, hasPassword, memberById } from './sign-in/sign-in.repository.js';
import type { Kysely } from 'kysely';
import { AccessPolicy } from './access/policy.js';
import { allRules } from './hub.js';
import { shadowCommand } from './shadow/shadow-command.js';
import type { Database } from './db/schema.js';
import { runImport } from './import/import.cli.js';
import { stringOptions } from './kernel/command-line.js';
import { UsageError } from './import/usage-error.js';

const usage = `Usage: makerspace-hub <command> [options]

Commands:
  serve                        run the hub (HTTP API and MQTT broker); the default
  init --account NAME --email EMAIL [--first-name NAME] [--last-name NAME]
       [--space NAME] [--timezone ZONE] [--superuser]
                               create an account, its space, an owner and an API key;
                               prints {accountId, spaceId, memberId, apiKeyId, token} as JSON
  migrate                      bring the database schema up to date
  superuser --member ID [--revoke]
                               make a member a superuser (sees every account), or revoke it
  token create --member EMAIL|ID [--account ID] [--label TEXT]
                               issue a new API token for an existing member (recovery when
                               every token is lost); prints {memberId, apiKeyId, token} as JSON
  sign-in-link --member EMAIL|ID [--account ID]
                               print a one-use link that signs the member in to the web app
                               (the owner's first sign-in, without curl or mail); a member
                               without a password chooses one on the way

  shadow --url URL --token T [--since TIME] [--every MINUTES] [--account ID]
                               compare another access server's allowed and denied decisions
                               (its resource logs) with what this hub's policy decides;
                               goes on where the last run stopped (docs/MOVING.md). The token
                               may come from HUB_SHADOW_TOKEN instead of the command line

  backup FILE                  copy the SQLite database to FILE while the hub runs (online
                               backup, checked); keep secret.key with it. PostgreSQL: pg_dump
  restore FILE                 check FILE and put it in place of the database (the hub must be
                               stopped); the old database is kept as <database>.before-restore-*

  import api --url URL --token TOKEN [--account ID] [--dry-run]
                               move in from another server with the commercial interface:
                               members, cards, packages, trainings, resources, bookings ahead,
                               opening hours and holidays; run again to update (docs/OPERATIONS.md)
  import csv members FILE [--account ID] [--skip-bad-rows] [--dry-run]
                               add members from a spreadsheet (CSV, UTF-8 or Windows-1252, , or ;)


Configuration comes from the environment (README.md, "Configuration", says more):
  HUB_HTTP_HOST, HUB_HTTP_PORT     HTTP API (and MQTT over WebSocket at /mqtt): 0.0.0.0, 8080
  HUB_MQTT_HOST, HUB_MQTT_PORT     MQTT over TCP: HUB_HTTP_HOST, 1883
  HUB_DATA_DIR                     SQLite database and secret key: ./data
  DATABASE_URL                     a SQLite file or postgres://user@host/db: <data dir>/hub.sqlite
  HUB_SECRET_FILE                  key that encrypts stored secrets: <data dir>/secret.key
  HUB_PUBLIC_URL                   base of absolute links, QR stickers and mailed links
  HUB_SMTP_URL, HUB_MAIL_FROM      mail server and sender for sign-in links, invitations and notifications
  HUB_STRIPE_API_URL               where the hub reaches Stripe (default Stripe's API; keys per space)
  HUB_AGENT_RELEASE_DIR            the agent release bundle offered to agents (default agent/dist-release)
  HUB_INVITATION_DAYS              how long an invitation link stays valid: 7
  HUB_TRUST_PROXY                  reverse proxies whose X-Forwarded-* headers count
  HUB_SQLITE_SYNCHRONOUS           full (survives a power cut) or normal: full
  HUB_WEBHOOK_ALLOW_INSECURE       1 allows http:// and private webhook receivers (development)
  HUB_METRICS_TOKEN                turns on GET /metrics for Prometheus
  HUB_HA_MQTT_URL, HUB_HA_TOKEN, HUB_HA_TOKEN_FILE, HUB_HA_DISCOVERY_PREFIX, HUB_HA_TOPIC_PREFIX
                                   Home Assistant's MQTT broker, the member it acts as, topics
  HUB_REDIS_URL, HUB_NODE_ID, HUB_NODE_HEARTBEAT_MS, HUB_NODE_TTL_MS, HUB_NODE_SWEEP_MS
                                   cluster mode (docs/SCALING.md)
  HUB_OWNER_EMAIL                  e-mail address of the owner made on first start
  LOG_LEVEL                        fatal ... trace, silent: info`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command === 'serve') return serve();

  const settings = settingsFromEnv();
  // Commands other than serve keep stdout for their result: logs go to stderr.
  const logger = createLogger({
    name: 'makerspace-hub',
    level: settings.logLevel,
    destination: process.stderr,
  });
  // Backup and restore open the SQLite file themselves: restore needs nobody else to have it open.
  if (command === 'backup') {
    const [target] = rest;
    if (!target || rest.length > 1) throw new ConfigError('backup', ['usage: makerspace-hub backup FILE']);
    const summary = await backupDatabase(settings.databaseUrl, target);
    logger.info(summary, `backup written; keep ${settings.secretFile} with it (it is not in the backup)`);
    return printResult(summary);
  }
  if (command === 'restore') {
    const [backup] = rest;
    if (!backup || rest.length > 1) throw new ConfigError('restore', ['usage: makerspace-hub restore FILE']);
    const result = restoreDatabase(settings.databaseUrl, backup);
    logger.info(result, 'database restored; start the hub (it migrates the restored database if needed)');
    return printResult(result);
  }

  const storage = createStorage({ url: settings.databaseUrl });
  // Migrations that seal stored values read HUB_SECRET_FILE only when they need it.
  const secretBox = () => new TokenBox(loadSecret(settings.secretFile));
  /** Migrates, then reads the secret key and checks the database's values were sealed with it. */
  const migrateWithSecretKey = async (): Promise<TokenBox> => {
    await migrateToLatest(storage.db, storage.dialect, secretBox);
    const box = secretBox();
    await checkSecretKey(storage.db, box, settings.secretFile);
    return box;
  };
  try {
    if (command === 'migrate') {
      const applied = await migrateToLatest(storage.db, storage.dialect, secretBox);
      process.stdout.write(
        applied.length ? `applied: ${applied.join(', ')}\n` : 'the database is up to date\n',
      );
      return 0;
    }
    if (command === 'init') {
      const { values } = parseArgs({
        args: rest,
        options: {
          ...stringOptions('account', 'email', 'first-name', 'last-name', 'space', 'timezone'),
          superuser: { type: 'boolean', default: false },
        },
      });
      if (!values.account || !values.email)
        throw new ConfigError('init', ['--account and --email are required']);
      const box = await migrateWithSecretKey();
      const created = await createAccountWithOwner(storage.db, box, {
        accountName: values.account,
        emailAddress: values.email,
        firstName: values['first-name'],
        lastName: values['last-name'],
        spaceName: values.space,
        timezone: values.timezone,
        superuser: values.superuser,
      });
      logger.info({ accountId: created.accountId, memberId: created.memberId }, 'account created');
      return printResult(created);
    }
    if (command === 'superuser') {
      const { values } = parseArgs({
        args: rest,
        options: { member: { type: 'string' }, revoke: { type: 'boolean', default: false } },
      });
      const id = Number(values.member);
      if (!Number.isInteger(id) || id <= 0)
        throw new ConfigError('superuser', ['--member must be a member id']);
      await migrateToLatest(storage.db, storage.dialect, secretBox);
      if (!(await writeSuperuser(storage.db, id, !values.revoke)))
        throw new ConfigError('superuser', [`member ${id} does not exist`]);
      process.stdout.write(`member ${id} ${values.revoke ? 'is no longer' : 'is now'} a superuser\n`);
      return 0;
    }
    if (command === 'token') {
      const [sub, ...args] = rest;
      const { values } = parseArgs({ args, options: stringOptions('member', 'account', 'label') });
      if (sub !== 'create' || !values.member)
        throw new ConfigError('token', [
          'usage: token create --member EMAIL|ID [--account ID] [--label TEXT]',
        ]);
      const box = await migrateWithSecretKey();
      const created = await createTokenForMember(storage.db, box, values);
      logger.info({ memberId: created.memberId, apiKeyId: created.apiKeyId }, 'API token issued');
      return printResult(created);
    }
    if (command === 'sign-in-link') {
      const { values } = parseArgs({ args: rest, options: stringOptions('member', 'account') });
      if (!values.member)
        throw new ConfigError('sign-in-link', ['usage: sign-in-link --member EMAIL|ID [--account ID]']);
      await migrateToLatest(storage.db, storage.dialect);
      const m = await findMemberForCli(storage.db, 'sign-in-link', values);
      if (!canSignIn(await memberById(storage.db, m.id)))
        throw new ConfigError('sign-in-link', [`member ${m.id} may not sign in (allowLogin is off)`]);
      // No password yet: the link asks for one (an invitation), so the next sign-in needs no link.
      const purpose = (await hasPassword(storage.db, m.id)) ? 'signIn' : 'invitation';
      const link = await createLink(
        {
          db: storage.db,
          // The CLI has no hub context: the system clock.
          clock: systemClock,
          linkBase: settings.publicUrl ?? `http://localhost:${settings.httpPort}`,
          invitationLifetimeMs: (settings.invitationDays ?? defaultInvitationDays) * 86_400_000,
        },
        m,
        purpose,
        null,
        null,
      );
      logger.info({ memberId: m.id, purpose, expiresAt: link.row.expiresAt }, 'sign-in link issued');
      process.stdout.write(`${link.url}\n`);
      return 0;
    }
    if (command === 'import') {
      const box = await migrateWithSecretKey();
      const out = await runImport(rest, { storage, tokens: box, clock: systemClock, logger });
      process.stdout.write(out.text);
      return out.code;
    }
    if (command === 'shadow') {
      const { values } = parseArgs({
        args: rest,
        options: stringOptions('url', 'token', 'since', 'every', 'account'),
      });
      const token = values.token ?? process.env.HUB_SHADOW_TOKEN;
      const problems: string[] = [];
      if (!values.url || !/^https?:\/\//.test(values.url))
        problems.push('--url must be the other server’s http(s):// address');
      if (!token) problems.push('--token (or HUB_SHADOW_TOKEN) must be an admin’s API token there');
      if (values.since !== undefined && Number.isNaN(Date.parse(values.since)))
        problems.push('--since must be a date or ISO time, e.g. 2026-11-01');
      const every = values.every === undefined ? undefined : Number(values.every);
      if (every !== undefined && !(every >= 1 && every <= 1440))
        problems.push('--every must be 1 to 1440 minutes');
      const account = values.account === undefined ? undefined : Number(values.account);
      if (account !== undefined && !(Number.isInteger(account) && account > 0))
        problems.push('--account must be an account id');
      if (problems.length > 0) throw new ConfigError('shadow', problems);
      await migrateToLatest(storage.db, storage.dialect, secretBox);
      const stopped = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopped.abort());
      return await shadowCommand({
        db: storage.db,
        policy: new AccessPolicy(allRules()),
        // The CLI has no hub context: the system clock.
        clock: systemClock,
        url: values.url as string,
        token: token as string,
        since: values.since === undefined ? undefined : new Date(values.since).toISOString(),
        account,
        everyMinutes: every,
        out: (text) => process.stdout.write(text),
        stopped: stopped.signal,
      });
    }
    process.stderr.write(`unknown command: ${command}\n\n${usage}\n`);
    return 2;
  } finally {
    await storage.close();
  }
}

/** Prints a command's result as one line of JSON; the exit code of a command that succeeded. */
function printResult(result: unknown): 0 {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

/** A member named on the command line by id or e-mail address (one account's, if several match). */
async function findMemberForCli(
  db: Kysely<Database>,
  command: string,
  values: { member?: string; account?: string },
): Promise<{ id: number; account: number }> {
  const member = values.member ?? '';
  const found = await membersNamed(db, member, values.account ? Number(values.account) : undefined);
  if (found.length === 0) throw new ConfigError(command, [`no member ${member}`]);
  if (found.length > 1)
    throw new ConfigError(command, [
      `${member} is a member of accounts ${found.map((m) => m.account).join(', ')}; add --account ID`,
    ]);
  const [m] = found;
  if (m.state !== 'active') throw new ConfigError(command, [`member ${m.id} is not active`]);
  return m;
}

/** Issues a token for a member found by id or e-mail address (one account's, if several match). */
async function createTokenForMember(
  db: Kysely<Database>,
  box: TokenBox,
  values: { member?: string; account?: string; label?: string },
): Promise<{ accountId: number; memberId: number; apiKeyId: number; token: string }> {
  const m = await findMemberForCli(db, 'token', values);
  const { row, token } = await insertApiKey(
    db,
    box,
    {
      account: m.account,
      member: m.id,
      label: values.label ?? 'issued with makerspace-hub token create',
      createdBy: null,
    },
    systemClock.now().toISOString(),
  ); // the CLI has no hub context: the system clock, taken once
  return { accountId: m.account, memberId: m.id, apiKeyId: row.id, token };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err) => {
    let settings: HubSettings | null = null;
    try {
      settings = settingsFromEnv();
    } catch {}
    // One line naming the cause and the fix (startup.ts), never a stack trace.
    const line =
      err instanceof ConfigError || err instanceof UsageError
        ? err.message
        : startupFailure(err, settings).replace(/^cannot start: /, '');
    process.stderr.write(`makerspace-hub: ${line}\n`);
    process.exitCode = err instanceof ConfigError || err instanceof UsageError ? 2 : 1;
  },
);
