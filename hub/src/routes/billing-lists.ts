import type { z } from 'zod';
import { checkRange } from '../billing/list-filters.js';
import { orderParam } from '../http/list.js';

type Order = 'asc' | 'desc';

/**
 * The list part of a billing collection: the filters its totals share (billing/list-filters.ts,
 * so a total covers exactly the rows the list shows), `order`, and the sort by `dated` (if any)
 * then id.
 */
export function billingList<Base>(
  params: z.ZodRawShape,
  filter: (base: Base, f: any) => Base,
  dated?: string,
) {
  return {
    query: { ...params, order: orderParam },
    where: (base: Base, query: Record<string, unknown>) => filter(base, checkRange(query)),
    order: (query: Record<string, unknown>): [string, Order][] => [
      ...(dated ? [[dated, query.order as Order] as [string, Order]] : []),
      ['id', query.order as Order],
    ],
  };
}
