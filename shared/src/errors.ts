import { z } from 'zod';

/** The one error body of the REST interface (Fabman's shape). */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
  /** One entry per failing field for bad input (`field`), else one for the error (`reason` when it has one). */
  errors: z.array(
    z.object({ message: z.string(), field: z.string().optional(), reason: z.string().optional() }),
  ),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
