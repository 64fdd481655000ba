/**
 * What a route says about itself in the OpenAPI document, in the makerspace's words, beside its
 * schema: `summary` and `description` (Fastify's own), and `admins`, `errors`, `errorExamples`,
 * `example` and `answerExample` declared here. A collection declares the same per operation in its `docs`
 * (http/collection.ts). openapi-document.ts derives the error answers every operation of its
 * shape gives (401, 429, 400, 404, 409 on a stale lockVersion, 415) and adds these.
 */

/** Error statuses the hub answers, each with the one error body (shared/src/errors.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 502 | 503 | 504;

/** An operation's docs beyond its schema. */
export interface OperationNotes {
  /** Only the account's admins and owners may call it: other members get 403. */
  admins?: true;
  /** Answers particular to this operation, beyond those its shape implies, and what they mean here. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** An example error body for some of those answers. */
  errorExamples?: Partial<Record<ErrorStatus, { message: string; data?: Record<string, unknown> }>>;
  /** An example request body (JSON) that the hub accepts. */
  example?: unknown;
  /** An example of the successful answer's body (JSON), where the answer's shape needs one. */
  answerExample?: unknown;
}

/** All the docs of one operation, as a collection declares them for each of its parts. */
export interface OperationDoc extends OperationNotes {
  summary: string;
  description: string;
}

/**
 * The docs of a collection's update or delete: the description says only what is particular to
 * it (or nothing), as the collection adds what every one does (`lockedDescription`,
 * `removedDescription`).
 */
export type WriteDoc = Omit<OperationDoc, 'description'> & { description?: string };

declare module 'fastify' {
  interface FastifySchema extends OperationNotes {}
}

/** The keys of `OperationNotes`, which the document takes out of a route's schema. */
export const noteKeys = ['admins', 'errors', 'errorExamples', 'example', 'answerExample'] as const;

/** The paging of every list, for its description. */
export const pagedNote =
  'Paged with `limit` (default 50, at most 1000) and `offset`; the answer carries `X-Total-Count` and a `Link` header with rel="next" while more follow.';

/** How every change with a `lockVersion` works, for its description. */
export const lockedNote = 'Send the record’s current `lockVersion`; fields left out keep their value.';

/** A change's description under `lockVersion`: how that works (`lockedNote`), then what is particular. */
export const lockedDescription = (particular?: string): string =>
  particular ? `${lockedNote} ${particular}` : lockedNote;

/** A delete's description: what is particular, then its answer. */
export const removedDescription = (particular?: string): string =>
  particular ? `${particular} Answers 204.` : 'Answers 204.';
