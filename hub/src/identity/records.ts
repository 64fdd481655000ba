import { notFound } from '../errors.js';

/**
 * Small helpers the identity, keys and webhooks areas share for their records (kept local so
 * they can later join the billing areas' mapper helper).
 */

/** The change stamps every record ends with. */
export function stamps(row: {
  lockVersion: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: number | null;
}) {
  return {
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
}

/** The row found, or 404 naming the record. */
export async function foundOr404<T>(row: Promise<T | undefined>, noun: string): Promise<T> {
  const found = await row;
  if (found === undefined) throw notFound(noun);
  return found;
}
