import { z } from 'zod';
import type { Db } from '../db/crud.js';
import { type OperationDoc, removedDescription, type WriteDoc } from '../http/openapi-doc.js';
import { pathId } from '../http/params.js';
import { type App, memberRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { adminCreatedRoute, adminNoContentRoute } from '../http/route-kinds.js';
import type { Caller } from '../kernel/caller.js';

/**
 * A role members hold on a record of the account, e.g. trainer of a training course or maintainer
 * of a resource type: under `path`, every member lists who holds it, admins give it to a member
 * (`{member}`, 201 with the holder) and take it away again (`path/:memberId`, 204).
 */
export interface MemberRole<Key extends string, Holder extends z.ZodType> {
  path: string;
  /** The path parameter naming the record, e.g. `courseId`. */
  key: Key;
  tags: string[];
  holder: Holder;
  /** The body that gives the role: `{member}`. */
  create: z.ZodType<{ member: number }>;
  /** The remove's description ends with its 204 (`removedDescription`). */
  docs: { list: OperationDoc; create: OperationDoc; remove: WriteDoc };
  holders(db: Db, caller: Caller, recordId: number): Promise<z.output<Holder>[]>;
  give(db: Db, caller: Caller, recordId: number, memberId: number, at: string): Promise<z.output<Holder>>;
  end(db: Db, caller: Caller, recordId: number, memberId: number): Promise<void>;
}

/** Declares the routes of a member role (MemberRole). */
export function memberRoleRoutes<Key extends string, Holder extends z.ZodType>(
  app: App,
  ctx: HubServices,
  role: MemberRole<Key, Holder>,
): void {
  const Params = z.object({ [role.key]: pathId });
  // The zod types cannot follow a key chosen by the caller: the schema above guarantees the number.
  // Likewise the answers (`as never` below) are typed by `holder` in MemberRole, not by Fastify.
  const recordId = (params: unknown) => (params as Record<Key, number>)[role.key];
  const { list, create, remove } = role.docs;
  memberRoute(
    app,
    'get',
    role.path,
    { tags: role.tags, ...list, params: Params, response: { 200: z.array(role.holder) } },
    (request, caller) => role.holders(ctx.db, caller, recordId(request.params)) as never,
  );
  adminCreatedRoute(
    app,
    'post',
    role.path,
    {
      tags: role.tags,
      ...create,
      params: Params,
      body: role.create,
      response: { 201: role.holder },
      example: { member: 42 },
    },
    (request, caller) =>
      role.give(
        ctx.db,
        caller,
        recordId(request.params),
        request.body.member,
        ctx.clock.now().toISOString(),
      ) as never,
  );
  adminNoContentRoute(
    app,
    'delete',
    `${role.path}/:memberId`,
    {
      tags: role.tags,
      ...remove,
      description: removedDescription(remove.description),
      params: Params.extend({ memberId: pathId }),
    },
    (request, caller) => role.end(ctx.db, caller, recordId(request.params), request.params.memberId),
  );
}
