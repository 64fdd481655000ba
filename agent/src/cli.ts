#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createCardReader, createDisplay, createInputs, createRelay, type Relay } from '@makerspace/hardware';
import { ConfigError, createLogger, type Logger } from '@makerspace/shared/agent';
import { Agent } from './agent.js';
import { type AgentConfig, loadAgentConfig, readApiKey } from './agent.config.js';
import { sendTap, tapSocketPath } from './tap-socket.js';
import { agentVersion } from './version.js';

const USAGE = `makerspace-agent ${agentVersion}

Usage:
  makerspace-agent run --config FILE            run the bridge agent (or set AGENT_CONFIG)
  makerspace-agent tap --config FILE --token HEX [--type em4102]
                                                tap a card on the running agent (simulated reader)
  makerspace-agent pair <hub URL> <code> [--dir DIR] [--data-dir DIR] [--mqtt URL] [--user USER]
                                                pair this Pi with a resource: writes DIR/api-key
                                                (0600) and DIR/config.json (default
                                                /etc/makerspace-agent), owned by USER (default:
                                                makerspace-agent when run as root and it exists)

Exit codes: 0 ok, 1 failure, 2 usage or configuration error.
`;

/** Exit code for bad usage and invalid configuration (systemd then shows the errors in the journal). */
const EXIT_CONFIG = 2;
// Stopping is bounded (systemd and operators expect an agent to be gone within 2 s); past this
// the relay is forced off and the process exits anyway.
const STOP_TIMEOUT_MS = 1_800;

function loadConfig(file: string | undefined): AgentConfig {
  if (!file) throw new ConfigError('(arguments)', ['--config FILE (or AGENT_CONFIG) is required']);
  return loadAgentConfig(file);
}

async function run(config: AgentConfig): Promise<void> {
  const logger = createLogger({ name: 'makerspace-agent', level: config.logLevel });
  const apiKey = readApiKey(config.apiKeyFile);
  const relay = createRelay(config.hardware, logger);
  const cardReader = config.cardReader ? createCardReader(config.cardReader, logger) : null;
  const feedback = config.feedback ? createRelay(config.feedback, logger) : null;
  const display = config.display ? createDisplay(config.display, logger) : null;
  const inputs = createInputs({
    inputs: config.inputs,
    relay,
    inputsFile: config.hardware.kind === 'simulated' ? config.hardware.inputsFile : undefined,
    source: 'agent config',
    logger,
  });
  installCrashHandlers(logger, relay);
  let stopping = false;
  // `code`: an agent update exits for systemd (Restart=always) to start the new or old version.
  const shutdown = (signal: string, code = 0) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const timer = setTimeout(() => {
      logger.error('stopping took too long; exiting');
      void forceOff(relay).finally(() => process.exit(1));
    }, STOP_TIMEOUT_MS);
    agent
      .stop()
      .then(() => {
        clearTimeout(timer);
        process.exit(code);
      })
      .catch((err) => {
        logger.error({ err: err.message }, 'stopping failed');
        void forceOff(relay).finally(() => process.exit(1));
      });
  };
  const agent = new Agent({
    config,
    apiKey,
    logger,
    relay,
    cardReader,
    feedback,
    display,
    inputs,
    restart: (code, reason) => shutdown(reason, code),
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  try {
    await agent.start();
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'the agent could not start');
    await agent.stop().catch(() => {});
    await forceOff(relay);
    process.exit(1);
  }
}

/** Fail-safe (design section 9): whatever breaks, the door closes and the machine stops. */
function installCrashHandlers(logger: Logger, relay: Relay): void {
  const crash = (kind: string) => (err: unknown) => {
    logger.fatal(
      { err: err instanceof Error ? err.stack : String(err) },
      `${kind}: switching the relay off and exiting`,
    );
    void forceOff(relay).finally(() => process.exit(1));
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled rejection'));
}

async function forceOff(relay: Relay): Promise<void> {
  const attempt = (async () => {
    await relay.set('off');
    await relay.close();
  })().catch(() => {});
  await Promise.race([attempt, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
}

async function tap(
  config: AgentConfig,
  token: string | undefined,
  type: string | undefined,
): Promise<number> {
  if (!token) throw new ConfigError('(arguments)', ['--token HEX is required']);
  const socket = tapSocketPath(config.dataDir);
  const response = await sendTap(socket, { token, type }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') {
      throw new Error(
        `no agent is listening on ${socket}; is \`makerspace-agent run\` running with this config?`,
      );
    }
    throw err;
  });
  process.stdout.write(`${JSON.stringify(response)}\n`);
  return response.ok ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return EXIT_CONFIG;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${agentVersion}\n`);
    return 0;
  }
  const command = positionals[0];
  if (command === 'pair') return pairCommand(positionals.slice(1), values);
  if (command !== 'run' && command !== 'tap') {
    process.stderr.write(USAGE);
    return EXIT_CONFIG;
  }
  try {
    const config = loadConfig(values.config ?? process.env.AGENT_CONFIG);
    if (command === 'tap') return await tap(config, values.token, values.type);
    await run(config);
    return -1;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return EXIT_CONFIG;
    }
    process.stderr.write(`makerspace-agent: ${(err as Error).message}\n`);
    return 1;
  }
}

async function pairCommand(
  args: string[],
  values: { dir?: string; 'data-dir'?: string; mqtt?: string; user?: string },
): Promise<number> {
  if (args.length !== 2) {
    process.stderr.write(`pair needs the hub URL and the code\n\n${USAGE}`);
    return EXIT_CONFIG;
  }
  try {
    // Loaded only for this command: pairing reads the REST API's schemas, which `run` never needs.
    const { pair } = await import('./pair.js');
    const owner = serviceUser(values.user);
    const result = await pair(args[0], args[1], {
      dir: values.dir ?? '/etc/makerspace-agent',
      dataDir: values['data-dir'],
      mqtt: values.mqtt,
      owner: owner ?? undefined,
    });
    const ownedBy = owner ? `, owned by ${owner.name}` : '';
    // The key itself is never printed.
    process.stdout.write(
      `Paired with "${result.name}" (resource ${result.resource}).\nKey: ${result.apiKeyFile} (mode 0600${ownedBy})\nConfig: ${result.configFile} (mode 0600${ownedBy})\n` +
        (!owner && process.getuid?.() === 0
          ? "Both files are owned by root: the agent's service user cannot read them. Pass --user USER, or chown them to it.\n"
          : '') +
        (result.simulatedHardware
          ? 'The config drives a SIMULATED relay: set "hardware" (gpio or serial-relay) and "cardReader" in it for real hardware.\n'
          : '') +
        `Start: makerspace-agent run --config ${result.configFile}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return EXIT_CONFIG;
    }
    process.stderr.write(`makerspace-agent: ${(err as Error).message}\n`);
    return 1;
  }
}

/**
 * The user pairing gives its files to: `--user`, or `makerspace-agent` when run as root and that
 * user exists (the systemd unit's User=); none otherwise (the files stay the caller's).
 */
function serviceUser(name: string | undefined): { name: string; uid: number; gid: number } | null {
  const lookUp = (user: string) => {
    try {
      const id = (flag: string) =>
        Number(
          execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
        );
      return { name: user, uid: id('-u'), gid: id('-g') };
    } catch {
      return null;
    }
  };
  if (name !== undefined) {
    const found = lookUp(name);
    if (!found) throw new ConfigError('(arguments)', [`--user: there is no user ${name}`]);
    return found;
  }
  return process.getuid?.() === 0 ? lookUp('makerspace-agent') : null;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      token: { type: 'string' },
      type: { type: 'string' },
      dir: { type: 'string' },
      'data-dir': { type: 'string' },
      mqtt: { type: 'string' },
      user: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
}

// `run` keeps the process alive until a signal (-1); everything else exits with its code.
main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
