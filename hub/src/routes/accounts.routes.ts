import { AccountRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { collection, registerCollection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { accountRecord, visibleAccounts } from '../identity/accounts.js';

/** spec 4.1: accounts (callers see their own; superusers every account). */
export const accounts = collection({
  table: 'accounts',
  path: '/accounts',
  id: 'accountId',
  noun: 'Account',
  nouns: 'accounts',
  tag: 'accounts',
  record: AccountRecord,
  scope: (_ctx, caller, _params, db) => visibleAccounts(db, caller),
  records: (_ctx, rows) => rows.map(accountRecord),
  list: { search: 'name' },
});

export function accountsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, accounts);
}
