import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const hubCli = join(repoRoot, 'hub/dist/cli.js');
export const agentCli = join(repoRoot, 'agent/dist/cli.js');

/**
 * The node flags a systemd unit of systemd/ starts its program with (the `--` words of its
 * ExecStart line between `node` and the script), so tests and benchmarks run it as the unit does.
 */
export function unitNodeFlags(unitFile: 'makerspace-agent.service' | 'makerspace-hub.service'): string[] {
  const unit = readFileSync(join(repoRoot, 'systemd', unitFile), 'utf8');
  const execStart = /^ExecStart=.*?\bnode\s+(.*)$/m.exec(unit)?.[1];
  if (execStart === undefined) throw new Error(`ExecStart of ${unitFile} not found`);
  const words = execStart.split(/\s+/);
  return words.slice(
    0,
    words.findIndex((word) => !word.startsWith('--')),
  );
}

export interface Proc {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout+stderr, or rejects after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every process and temp dir a test opens, so teardown closes them all. */
const open = new Set<Proc>();
const dirs = new Set<string>();

export function tempDir(prefix = 'makerspace-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export function startProcess(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const proc: Proc = {
    child,
    output: () => text,
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = text.match(pattern);
          if (m) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      open.delete(proc);
      return code;
    },
  };
  open.add(proc);
  return proc;
}

/** Runs a command to its end and returns its output and exit code. */
export function runProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function stopAll(): Promise<void> {
  await Promise.all([...open].map((p) => p.stop('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}
