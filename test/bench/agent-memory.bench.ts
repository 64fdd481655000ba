import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCli, repoRoot, startProcess, tempDir, unitNodeFlags } from '../support/processes.js';
import { ShellyGen2Simulator } from '../support/shelly-gen2-simulator.js';
import { startTestBroker, TasmotaSimulator } from '../support/tasmota-simulator.js';

/** The agent's launcher, which the unit's ExecStart runs (it picks the installed release). */
const agentBin = join(repoRoot, 'agent/bin/makerspace-agent.js');

/** The node flags the agent's systemd unit starts it with, read from its ExecStart line. */
export const AGENT_NODE_FLAGS = unitNodeFlags('makerspace-agent.service');

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** RSS samples of a running agent: the median of 5, a second apart, after 10 s. */
async function idleRss(args: string[]): Promise<number[]> {
  const agent = startProcess(args, { LOG_LEVEL: 'warn' });
  await new Promise((r) => setTimeout(r, 10_000));
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMiB(agent.child.pid as number));
    await new Promise((r) => setTimeout(r, 1000));
  }
  await agent.stop('SIGTERM');
  return samples.sort((a, b) => a - b);
}

const row = (label: string, samples: number[]) =>
  `| ${label} | - | ${samples[2].toFixed(1)} MiB median (${samples[0].toFixed(1)}-${samples[4].toFixed(1)}) | 0 |`;

/**
 * Idle RSS of a real agent process (hub unreachable, so it sits in its reconnect loop): with a
 * simulated relay and reader, with and without the unit's flags; then, as the unit runs it
 * (its flags, through the release launcher), with every feature configured: inputs of each
 * kind, a display, a buzzer, updates; on the simulated relay, on a Shelly plug (the simulator of
 * its RPC on 127.0.0.1) and on a Tasmota plug (its simulator, on a broker on 127.0.0.1) whose
 * power reading is the busy input.
 */
export async function agentMemoryBench(): Promise<string[]> {
  const rows: string[] = [];
  const write = (dir: string, body: Record<string, unknown>) => {
    const apiKeyFile = join(dir, 'api-key');
    writeFileSync(apiKeyFile, 'k'.repeat(40));
    chmodSync(apiKeyFile, 0o600);
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        hub: 'mqtt://127.0.0.1:9',
        resourceId: 1,
        apiKeyFile,
        controlType: 'machine',
        dataDir: dir,
        cardReader: { kind: 'simulated' },
        ...body,
      }),
    );
    return config;
  };
  for (const flags of [[], AGENT_NODE_FLAGS]) {
    const dir = tempDir('agent-memory-');
    const config = write(dir, { hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json') } });
    const samples = await idleRss([...flags, agentCli, 'run', '--config', config]);
    rows.push(
      row(flags.length ? `agent idle RSS (${flags.join(' ')})` : 'agent idle RSS (no flags)', samples),
    );
  }
  const everything = (dir: string) => ({
    display: { kind: 'simulated', file: join(dir, 'display.json'), columns: 16, rows: 2 },
    feedback: { kind: 'simulated', stateFile: join(dir, 'buzzer.json') },
    updates: { hubUrl: 'http://127.0.0.1:9', confirmSeconds: 60 },
  });
  /** Every feature on a smart plug, whose power reading is the busy input, as the unit runs it. */
  const plugRow = async (name: string, hardware: Record<string, unknown>) => {
    const dir = tempDir('agent-memory-');
    const config = write(dir, {
      hardware,
      inputs: [
        { name: 'busy', kind: 'busy', source: { kind: 'power', thresholdWatts: 20, hysteresisWatts: 5 } },
      ],
      ...everything(dir),
    });
    return row(
      `agent idle RSS, all features, ${name} plug (as the unit runs it)`,
      await idleRss([...AGENT_NODE_FLAGS, agentBin, 'run', '--config', config]),
    );
  };
  {
    const dir = tempDir('agent-memory-');
    writeFileSync(join(dir, 'inputs.json'), JSON.stringify({ busy: false, lid: true }));
    const config = write(dir, {
      hardware: {
        kind: 'simulated',
        stateFile: join(dir, 'relay.json'),
        inputsFile: join(dir, 'inputs.json'),
      },
      inputs: [
        { name: 'busy', kind: 'busy' },
        { name: 'lid', kind: 'interlock', label: 'Lid' },
      ],
      ...everything(dir),
    });
    rows.push(
      row(
        'agent idle RSS, all features, simulated relay (as the unit runs it)',
        await idleRss([...AGENT_NODE_FLAGS, agentBin, 'run', '--config', config]),
      ),
    );
  }
  const plug = new ShellyGen2Simulator();
  const host = await plug.start();
  try {
    rows.push(await plugRow('Shelly', { kind: 'shelly', host }));
  } finally {
    await plug.stop();
  }
  // A Tasmota plug: a second MQTT client beside the hub link, to the plug's broker.
  const broker = await startTestBroker();
  const tasmota = new TasmotaSimulator({ broker: broker.url, topic: 'laser-plug', metering: true });
  await tasmota.start();
  try {
    rows.push(await plugRow('Tasmota', { kind: 'tasmota', broker: broker.url, topic: 'laser-plug' }));
  } finally {
    await tasmota.stop();
    await broker.close();
  }
  return rows;
}
