/**
 * Row-to-record mapping shared by the areas: most records show some columns as they are stored,
 * a few converted (money, booleans, JSON), and the stamps every table carries. A mapper names the
 * columns shown as stored (`columnsOf`), spells out only what it converts, and ends with
 * `stampsOf`; `recordOf` is both for a record that converts nothing.
 */

/** The stamps of every table (db/schema.ts `Stamps`), as rows hold them once read. */
export interface StampedRow {
  lockVersion: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: number | null;
}

/** The stamps of a row, for the record: lockVersion, createdAt, updatedAt, updatedBy. */
export function stampsOf(row: StampedRow): StampedRow {
  return {
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** The named columns of a row as stored. */
export function columnsOf<R, K extends keyof R>(row: R, columns: readonly K[]): Pick<R, K> {
  const record = {} as Pick<R, K>;
  for (const column of columns) record[column] = row[column];
  return record;
}

/** The named columns of a row as stored, followed by its stamps (a record with nothing to convert). */
export function recordOf<R extends StampedRow, K extends keyof R>(
  row: R,
  columns: readonly K[],
): Pick<R, K> & StampedRow {
  return { ...columnsOf(row, columns), ...stampsOf(row) };
}

/** Groups rows by a key (e.g. a page's allocations by invoice), reading each group once. */
export function groupBy<R, K>(rows: readonly R[], key: (row: R) => K): Map<K, R[]> {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
