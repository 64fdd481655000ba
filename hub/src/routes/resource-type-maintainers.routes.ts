import { ResourceTypeMaintainerCreate, ResourceTypeMaintainerRecord } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HubServices } from '../http/services.js';
import { addTypeMaintainer, removeTypeMaintainer, typeMaintainers } from '../problems/maintainers.js';
import { memberRoleRoutes } from './member-roles.js';

/**
 * Maintainers of a resource type (docs/DECISIONS.md, "Problem reports"): who resolves the
 * problem reports of its resources and is told of new ones.
 */
export function resourceTypeMaintainersRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) =>
    memberRoleRoutes(app, ctx, {
      path: '/resource-types/:resourceTypeId/maintainers',
      key: 'resourceTypeId',
      tags: ['resources'],
      holder: ResourceTypeMaintainerRecord,
      create: ResourceTypeMaintainerCreate,
      docs: {
        list: {
          summary: 'List the maintainers of a resource type',
          description:
            'The members who look after the resources of this type: they see the account’s problem reports and resolve those of these resources, and new reports are meant for them (the admins when a type has none). With their names (`_embedded.member`), by name. Every member of the account may see who they are.',
        },
        create: {
          summary: 'Make a member maintainer of a resource type',
          description:
            'The member may then resolve the problem reports of this type’s resources (and sees every report of the account). Answers 201 with the maintainer.',
          errors: {
            409: 'The member already maintains this type (`data.alreadyMaintainer`).',
            422: 'No such member in the account (`data.unknownMember`).',
          },
        },
        remove: {
          summary: 'End a member’s role as maintainer of a resource type',
          description: 'Reports they resolved stay resolved.',
        },
      },
      holders: typeMaintainers,
      give: addTypeMaintainer,
      end: removeTypeMaintainer,
    });
}
