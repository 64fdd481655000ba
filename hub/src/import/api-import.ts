import type { ApiSource } from './api-source.js';
import { bookings, members } from './api-members.js';
import { packages, resources, resourceTypes, spaces, trainingCourses } from './api-catalogue.js';
import { ImportRun, type ImportTarget } from './import-run.js';
import type { ImportSummary } from './import-summary.js';

export { fingerprint, type ImportTarget } from './import-run.js';
export { type ImportSummary, type KindSummary, summaryTable } from './import-summary.js';

/**
 * The API import (`makerspace-hub import api`): every kind of record, in the order references
 * need (resource types before resources, members before their keys); import-run.ts says how
 * each record is written and why a second run writes nothing.
 */
export class ApiImport {
  private readonly importRun: ImportRun;

  constructor(
    source: ApiSource,
    target: ImportTarget,
    options: { dryRun: boolean; onProgress?: (kind: string, done: number) => void },
  ) {
    this.importRun = new ImportRun(source, target, options);
  }

  async run(): Promise<ImportSummary> {
    const run = this.importRun;
    await spaces(run);
    await resourceTypes(run);
    await resources(run);
    await trainingCourses(run);
    await packages(run);
    await members(run);
    await bookings(run);
    return run.result();
  }
}
