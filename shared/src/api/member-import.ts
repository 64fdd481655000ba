import { z } from 'zod';
import { Id } from './common.js';

/** POST /members/import: how to treat the uploaded spreadsheet. */
export const MemberImportQuery = z.object({
  dryRun: z
    .boolean()
    .default(false)
    .describe('true: read and check the file and answer what would be imported; nothing is written'),
  skipBadRows: z
    .boolean()
    .default(false)
    .describe(
      'true: import the good rows and leave out the wrong ones; false: nothing is imported while a row is wrong',
    ),
});

export const MemberImportResult = z.object({
  encoding: z
    .enum(['utf-8', 'windows-1252'])
    .describe('How the file was read: UTF-8 when valid, else Windows-1252'),
  separator: z.enum([',', ';']),
  dateLocale: z.string().describe("The space's locale, whose way of writing dates was read"),
  dateExample: z.string().describe('31 December 2025 as that locale writes it'),
  columns: z.array(
    z.object({
      heading: z.string(),
      field: z.string().nullable().describe('The member field the column fills; null: not imported'),
    }),
  ),
  rows: z.number().int().describe('Data rows in the file (the heading line not counted)'),
  preview: z
    .array(z.object({ line: z.number().int(), member: z.record(z.string(), z.unknown()) }))
    .describe('The first rows as they would be imported'),
  errors: z
    .array(z.object({ line: z.number().int(), messages: z.array(z.string()) }))
    .describe('Wrong rows with their line in the file (1 is the heading line)'),
  existing: z
    .array(z.object({ line: z.number().int(), member: Id }))
    .describe('Rows whose e-mail address is already a member’s: left as they are'),
  created: z.number().int(),
  wouldCreate: z.number().int(),
  imported: z.boolean().describe('Whether members were written'),
  dryRun: z.boolean(),
});
export type MemberImportResult = z.infer<typeof MemberImportResult>;
