import { ResourceTypeMaintainerCreate, ResourceTypeMaintainerRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../http/auth.js';
import { pathId } from '../http/params.js';
import { memberRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { addTypeMaintainer, removeTypeMaintainer, typeMaintainers } from '../problems/maintainers.js';

const TypeParams = z.object({ resourceTypeId: pathId });

/**
 * Maintainers of a resource type (docs/DECISIONS.md, "Problem reports"): who resolves the
 * problem reports of its resources and is told of new ones.
 */
export function resourceTypeMaintainersRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/resource-types/:resourceTypeId/maintainers',
      {
        tags: ['resources'],
        summary: 'List the maintainers of a resource type',
        description:
          'The members who look after the resources of this type: they see the account’s problem reports and resolve those of these resources, and new reports are meant for them (the admins when a type has none). With their names (`_embedded.member`), by name. Every member of the account may see who they are.',
        params: TypeParams,
        response: { 200: z.array(ResourceTypeMaintainerRecord) },
      },
      (request, caller) => typeMaintainers(ctx.db, caller, request.params.resourceTypeId),
    );

    app.post(
      '/resource-types/:resourceTypeId/maintainers',
      {
        schema: {
          tags: ['resources'],
          summary: 'Make a member maintainer of a resource type',
          description:
            'The member may then resolve the problem reports of this type’s resources (and sees every report of the account). Answers 201 with the maintainer.',
          admins: true,
          params: TypeParams,
          body: ResourceTypeMaintainerCreate,
          response: { 201: ResourceTypeMaintainerRecord },
          errors: {
            409: 'The member already maintains this type (`data.alreadyMaintainer`).',
            422: 'No such member in the account (`data.unknownMember`).',
          },
          example: { member: 42 },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const at = ctx.clock.now().toISOString();
        const record = await addTypeMaintainer(
          ctx.db,
          caller,
          request.params.resourceTypeId,
          request.body.member,
          at,
        );
        return reply.code(201).send(record);
      },
    );

    app.delete(
      '/resource-types/:resourceTypeId/maintainers/:memberId',
      {
        schema: {
          tags: ['resources'],
          summary: 'End a member’s role as maintainer of a resource type',
          description: 'Reports they resolved stay resolved. Answers 204.',
          admins: true,
          params: TypeParams.extend({ memberId: pathId }),
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        await removeTypeMaintainer(ctx.db, caller, request.params.resourceTypeId, request.params.memberId);
        return reply.code(204).send();
      },
    );
  };
}
