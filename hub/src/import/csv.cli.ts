import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ImportEnvironment, importCaller, importContext } from './command.js';
import { csvResultText, importMembersCsv } from './members-csv.js';
import { UsageError } from './usage-error.js';

/** `makerspace-hub import csv members FILE`: exit 1 when rows are wrong and were not skipped. */
export async function runCsvImportCli(
  args: string[],
  env: ImportEnvironment,
  usage: string,
  accountOption: (value: string | undefined) => number | undefined,
): Promise<{ text: string; code: number }> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'skip-bad-rows': { type: 'boolean', default: false },
    },
  });
  const [what, file, ...extra] = positionals;
  if (what !== 'members' || !file || extra.length > 0) throw new UsageError(usage);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new UsageError(
      `import csv: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const caller = await importCaller(env.storage, accountOption(values.account));
  const result = await importMembersCsv(importContext(env), caller, bytes, {
    dryRun: values['dry-run'],
    skipBadRows: values['skip-bad-rows'],
  });
  const failed =
    result.errors.length > 0 && !result.imported && !(values['dry-run'] && values['skip-bad-rows']);
  return { text: csvResultText(result), code: failed ? 1 : 0 };
}
