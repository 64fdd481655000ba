import { parseArgs } from 'node:util';
import { stringOptions } from '../kernel/command-line.js';
import { ApiImport, summaryTable } from './api-import.js';
import { ApiSource, SourceError } from './api-source.js';
import { type ImportEnvironment, importCaller, importContext } from './command.js';
import { UsageError } from './usage-error.js';

const apiUsage =
  'usage: makerspace-hub import api --url URL --token TOKEN [--account ID] [--page-size N] [--dry-run]';
const csvUsage = 'usage: makerspace-hub import csv members FILE [--account ID] [--skip-bad-rows] [--dry-run]';

const accountOption = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const id = Number(value);
  if (!Number.isInteger(id) || id <= 0) throw new UsageError('--account must be an account id');
  return id;
};

const pageSizeOption = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError('--page-size must be 1 to 1000');
  return n;
};

/** `makerspace-hub import ...`: the table to print and the exit code (1 when something failed). */
export async function runImport(
  args: string[],
  env: ImportEnvironment,
): Promise<{ text: string; code: number }> {
  const [what, ...rest] = args;
  if (what === 'api') {
    const { values } = parseArgs({
      args: rest,
      options: {
        ...stringOptions('url', 'token', 'account', 'page-size'),
        'dry-run': { type: 'boolean', default: false },
      },
    });
    const token = values.token ?? process.env.IMPORT_TOKEN;
    if (!values.url || !token) throw new UsageError(`--url and --token are required\n${apiUsage}`);
    const caller = await importCaller(env.storage, accountOption(values.account));
    try {
      const source = new ApiSource({
        url: values.url,
        token,
        pageSize: pageSizeOption(values['page-size']),
        onWait: (ms, url) => env.logger.info({ waitMs: ms, url }, 'rate limited: waiting'),
      });
      const run = new ApiImport(
        source,
        { ctx: importContext(env), caller },
        {
          dryRun: values['dry-run'],
          // Progress on stderr (the log), the table on stdout.
          onProgress: (kind, done) => {
            if (done % 100 === 0) env.logger.info({ kind, done }, 'importing');
          },
        },
      );
      const summary = await run.run();
      return { text: summaryTable(summary), code: 0 };
    } catch (err) {
      if (err instanceof SourceError) throw new UsageError(`import api: ${err.message}`);
      throw err;
    }
  }
  if (what === 'csv') {
    const { runCsvImportCli } = await import('./csv.cli.js');
    return runCsvImportCli(rest, env, csvUsage, accountOption);
  }
  throw new UsageError(`${apiUsage}\n${csvUsage}`);
}
