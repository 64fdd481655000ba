import type { ImportKind } from './import-ids.repository.js';

/** The counts of an import run and the table the CLI prints. */

export interface KindSummary {
  kind: ImportKind | 'openingHours';
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Why records were left out, with how many and the first few old ids. */
  skipped: Map<string, { count: number; examples: string[] }>;
  /** Optional fields the hub refused and left out of records that came in ("phone: too long"). */
  leftOut: Map<string, { count: number; examples: string[] }>;
}

export interface ImportSummary {
  source: string;
  dryRun: boolean;
  kinds: KindSummary[];
  requests: number;
  waits: number;
  seconds: number;
}

/** Kinds in the order they are imported (and printed). */
export const order: KindSummary['kind'][] = [
  'space',
  'openingHours',
  'holiday',
  'resourceType',
  'resource',
  'trainingCourse',
  'package',
  'packagePermission',
  'packageCredit',
  'member',
  'memberKey',
  'memberTraining',
  'memberPackage',
  'booking',
];

/** The summary as a table of counts per kind, then what was skipped and why. */
export function summaryTable(summary: ImportSummary): string {
  const head = [
    'kind',
    'read',
    summary.dryRun ? 'would create' : 'created',
    summary.dryRun ? 'would update' : 'updated',
    'unchanged',
    'skipped',
  ];
  const rows = summary.kinds.map((k) => [
    k.kind,
    String(k.read),
    String(k.created),
    String(k.updated),
    String(k.unchanged),
    String([...k.skipped.values()].reduce((n, s) => n + s.count, 0)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [
    `${summary.dryRun ? 'Dry run (nothing written): ' : ''}import from ${summary.source}`,
    line(head),
    ...rows.map(line),
  ];
  const skipped = summary.kinds.flatMap((k) =>
    [...k.skipped.entries()].map(
      ([why, s]) => `  ${k.kind}: ${s.count} skipped: ${why} (e.g. id ${s.examples.join(', ')})`,
    ),
  );
  if (skipped.length > 0) out.push('', 'Skipped:', ...skipped);
  const leftOut = summary.kinds.flatMap((k) =>
    [...k.leftOut.entries()].map(
      ([why, s]) => `  ${k.kind}: ${s.count} without ${why} (e.g. id ${s.examples.join(', ')})`,
    ),
  );
  if (leftOut.length > 0) out.push('', 'Imported without a field this hub refuses:', ...leftOut);
  out.push(
    '',
    `${summary.requests} requests, ${summary.waits} waits for rate limits, ${summary.seconds.toFixed(1)} s`,
  );
  return `${out.join('\n')}\n`;
}
