import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './fake-agent.js';
import { agentCli, hubCli, type Proc, runProcess, startProcess, tempDir } from './processes.js';

export interface HubProcess {
  proc: Proc;
  dataDir: string;
  httpPort: number;
  mqttPort: number;
  base: string;
  token: string;
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
}

/**
 * The first owner's token of a hub's first start: printed when its stdout is a terminal,
 * otherwise (always under test, as under systemd) read from `first-owner-token` in the data dir,
 * which the start message names.
 */
export async function firstOwnerToken(proc: Proc, dataDir: string): Promise<string> {
  const [, shown] = await proc.waitFor(
    /shown only now\): ([0-9a-f-]{36})|API token: in \S*first-owner-token, readable by this user only/,
  );
  return shown ?? readFileSync(join(dataDir, 'first-owner-token'), 'utf8').trim();
}

/** Starts `makerspace-hub serve` on free ports (or the given ones, for a restart) with a fresh or given data dir. */
export async function startHubProcess(
  options: {
    dataDir?: string;
    httpPort?: number;
    mqttPort?: number;
    token?: string;
    env?: NodeJS.ProcessEnv;
    /** Another build of the hub's CLI (benchmarks compare two builds). */
    cli?: string;
    /** Node flags before the script (benchmarks run the hub with its unit's flags). */
    nodeArgs?: string[];
  } = {},
): Promise<HubProcess> {
  const dataDir = options.dataDir ?? tempDir('hub-');
  // BENCH_HUB_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the hub of a benchmark.
  const nodeArgs = process.env.BENCH_HUB_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const proc = startProcess([...(options.nodeArgs ?? []), ...nodeArgs, options.cli ?? hubCli, 'serve'], {
    HUB_DATA_DIR: dataDir,
    HUB_HTTP_HOST: '127.0.0.1',
    HUB_HTTP_PORT: String(options.httpPort ?? 0),
    HUB_MQTT_PORT: String(options.mqttPort ?? 0),
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const [, mqttPort] = await proc.waitFor(/"port":(\d+)[^\n]*MQTT broker listening/);
  const [, httpPort] = await proc.waitFor(/"port":(\d+)[^\n]*HTTP API listening/);
  const token = options.token ?? (await firstOwnerToken(proc, dataDir));
  const base = `http://127.0.0.1:${httpPort}/api/v1`;
  return {
    proc,
    dataDir,
    httpPort: Number(httpPort),
    mqttPort: Number(mqttPort),
    base,
    token,
    async api(method, path, body, as = token) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${as}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
  };
}

export interface AgentProcess {
  proc: Proc;
  dir: string;
  configFile: string;
  stateFile: string;
  relay(): 'on' | 'off' | null;
  tap(token: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Rewrites the simulated inputs file (agents started with `inputs`). */
  setInputs(states: Record<string, boolean>): void;
}

/** Writes an agent config (simulated relay and reader) and starts `makerspace-agent run`. */
export async function startAgentProcess(options: {
  /** One hub, or several (cluster mode: the agent moves to the next when one fails). */
  hubUrl: string | string[];
  resourceId: number;
  apiKey: string;
  controlType: 'door' | 'machine';
  dir?: string;
  pulseSeconds?: number;
  keepaliveSeconds?: number;
  /** Wait for "connected to the hub" (default) or only for "agent started" (hub away). */
  waitFor?: 'connected' | 'started';
  /** Another relay than the simulated one (a smart plug against its simulator). */
  hardware?: Record<string, unknown>;
  /** More config fields (a display, ...). */
  config?: Record<string, unknown>;
  /** Node flags, e.g. the systemd unit's (`--lite-mode` has no WebAssembly). */
  nodeArgs?: string[];
  /** The config's `inputs`; their simulated states start as `initialInputs` in inputs.json. */
  inputs?: unknown[];
  initialInputs?: Record<string, boolean>;
}): Promise<AgentProcess> {
  const dir = options.dir ?? tempDir('agent-');
  const keyFile = join(dir, 'api-key');
  writeFileSync(keyFile, options.apiKey, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const stateFile = join(dir, 'relay.json');
  const configFile = join(dir, 'config.json');
  const inputsFile = join(dir, 'inputs.json');
  const setInputs = (states: Record<string, boolean>) => {
    // Renamed over the old file, as an editor saves it: the agent never reads half a file.
    writeFileSync(`${inputsFile}.tmp`, JSON.stringify(states));
    renameSync(`${inputsFile}.tmp`, inputsFile);
  };
  if (options.inputs) setInputs(options.initialInputs ?? {});
  writeFileSync(
    configFile,
    JSON.stringify({
      hub: options.hubUrl,
      resourceId: options.resourceId,
      apiKeyFile: keyFile,
      controlType: options.controlType,
      pulseSeconds: options.pulseSeconds ?? 1,
      dataDir: join(dir, 'data'),
      keepaliveSeconds: options.keepaliveSeconds ?? 2,
      hardware: options.hardware ?? {
        kind: 'simulated',
        stateFile,
        ...(options.inputs ? { inputsFile } : {}),
      },
      cardReader: { kind: 'simulated' },
      ...(options.inputs ? { inputs: options.inputs } : {}),
      ...options.config,
    }),
  );
  const proc = startProcess([...(options.nodeArgs ?? []), agentCli, 'run', '--config', configFile], {
    LOG_LEVEL: 'info',
  });
  await proc.waitFor(options.waitFor === 'started' ? /agent started/ : /connected to the hub/);
  return {
    proc,
    dir,
    configFile,
    stateFile,
    relay: () => (existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')).relay : null),
    setInputs,
    tap: (token) => runProcess([agentCli, 'tap', '--config', configFile, '--token', token], {}),
  };
}

/** Starts a simulated door agent for a resource of `hub` and waits until its bridge reads online. */
export async function startOnlineDoorAgent(
  hub: HubProcess,
  resourceId: number,
  apiKey: string,
  dir?: string,
): Promise<AgentProcess> {
  const agent = await startAgentProcess({
    hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
    resourceId,
    apiKey,
    controlType: 'door',
    dir,
  });
  await eventually(
    async () => (await hub.api('GET', `/resources/${resourceId}/bridge`)).body.offline === false,
    10_000,
    'bridge online',
  );
  return agent;
}
