import type { FastifyReply } from 'fastify';

/** A file the hub answers: its content type and name, shown `inline` or (by default) downloaded. */
export interface FileAnswer {
  type: string;
  name: string;
  inline?: boolean;
  /** `private, no-store` for personal data; files of the account are `no-store` (the default). */
  cache?: 'no-store' | 'private, no-store';
}

/** The reply set up for a file: its content type, its name, and no cache keeping it. */
export function fileReply(reply: FastifyReply, file: FileAnswer): FastifyReply {
  return reply
    .type(file.type)
    .header('content-disposition', `${file.inline ? 'inline' : 'attachment'}; filename="${file.name}"`)
    .header('cache-control', file.cache ?? 'no-store');
}
