import { hubCli, runProcess, tempDir } from '../support/processes.js';
import { startHubProcess } from '../support/e2e.js';
import { seedMovingInSource } from '../support/import-seed.js';
import { fmt } from './harness.js';

/**
 * Moving in: `makerspace-hub import api` from a second hub holding BENCH_IMPORT_MEMBERS members
 * (1,000 by default) with their cards, trainings and packages, 20 resources and 100 bookings
 * ahead (test/support/import-seed.ts), into a fresh hub's SQLite database; then the same again
 * (nothing changed: every record read and compared, none written). The time is the import
 * process's, start to exit; records are those written (created or updated).
 */
export async function importBench(): Promise<string[]> {
  const members = Number(process.env.BENCH_IMPORT_MEMBERS ?? 1000);
  const sourceDir = tempDir('bench-import-source-');
  const { token } = await seedMovingInSource(sourceDir, { members });
  const source = await startHubProcess({ dataDir: sourceDir, token });
  const targetDir = tempDir('bench-import-target-');
  const env = { HUB_DATA_DIR: targetDir, LOG_LEVEL: 'warn' };
  const init = await runProcess(
    [hubCli, 'init', '--account', 'Fablab', '--email', 'owner@fablab.example'],
    env,
  );
  if (init.code !== 0) throw new Error(init.stderr);
  const run = async () => {
    const started = performance.now();
    const out = await runProcess([hubCli, 'import', 'api', '--url', source.base, '--token', token], env);
    const seconds = (performance.now() - started) / 1000;
    if (out.code !== 0) throw new Error(out.stderr);
    const rows = out.stdout
      .split('\n')
      .slice(2, 16)
      .map((l) => l.trim().split(/\s+/));
    const sum = (col: number) => rows.reduce((n, r) => n + Number(r[col]), 0);
    return { seconds, read: sum(1), written: sum(2) + sum(3), skipped: sum(5) };
  };
  const first = await run();
  const second = await run();
  await source.proc.stop('SIGTERM');
  return [
    `| import api, ${members} members (${first.written} records written) | ${fmt(first.written / first.seconds, 0)} records/s | ${fmt(first.seconds, 1)} s | ${first.skipped} |`,
    `| import api again, nothing changed (${second.read} records read) | ${fmt(second.read / second.seconds, 0)} records/s | ${fmt(second.seconds, 1)} s | ${second.skipped} |`,
  ];
}
