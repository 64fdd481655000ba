import { z } from 'zod';

/** A record id in a path: a positive whole number. */
export const pathId = z.coerce.number().int().positive();

/** The path parameters of a record named by its id, e.g. `/members/:memberId/key`. */
export const MemberParams = z.object({ memberId: pathId });
export const ResourceParams = z.object({ resourceId: pathId });
export const SpaceParams = z.object({ spaceId: pathId });
