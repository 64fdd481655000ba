import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCli, startProcess, tempDir } from '../support/processes.js';

/** The node flags the agent's systemd unit starts it with, read from its ExecStart line. */
export const AGENT_NODE_FLAGS = unitNodeFlags(
  readFileSync(new URL('../../systemd/makerspace-agent.service', import.meta.url), 'utf8'),
);

function unitNodeFlags(unit: string): string[] {
  const execStart = /^ExecStart=.*?\bnode\s+(.*)$/m.exec(unit)?.[1] ?? '';
  const words = execStart.split(/\s+/);
  return words.slice(
    0,
    words.findIndex((word) => !word.startsWith('--')),
  );
}

function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/**
 * Idle RSS of a real agent process (simulated relay and reader, hub unreachable so it sits in its
 * reconnect loop): the median of 5 samples a second apart after 10 s, with and without the flags.
 */
export async function agentMemoryBench(): Promise<string[]> {
  const rows: string[] = [];
  for (const flags of [[], AGENT_NODE_FLAGS]) {
    const dir = tempDir('agent-memory-');
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
        hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json') },
        cardReader: { kind: 'simulated' },
      }),
    );
    const agent = startProcess([...flags, agentCli, 'run', '--config', config], { LOG_LEVEL: 'warn' });
    await new Promise((r) => setTimeout(r, 10_000));
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssMiB(agent.child.pid as number));
      await new Promise((r) => setTimeout(r, 1000));
    }
    await agent.stop('SIGTERM');
    samples.sort((a, b) => a - b);
    const label = flags.length ? `agent idle RSS (${flags.join(' ')})` : 'agent idle RSS (no flags)';
    rows.push(
      `| ${label} | - | ${samples[2].toFixed(1)} MiB median (${samples[0].toFixed(1)}-${samples[4].toFixed(1)}) | 0 |`,
    );
  }
  return rows;
}
