import { readFileSync } from 'node:fs';
import type { z } from 'zod';

/** A configuration error that lists every problem at once, each with its path. */
export class ConfigError extends Error {
  constructor(
    public readonly source: string,
    public readonly problems: string[],
  ) {
    super(`${source}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Formats zod issues as `path: message` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
}

/** Parses a value with a schema, throwing one ConfigError with all problems. */
export function parseConfig<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ConfigError(source, formatIssues(result.error));
  return result.data;
}

/** Reads a JSON config file and validates it; unreadable or malformed files are ConfigErrors too. */
export function loadJsonConfig<S extends z.ZodType>(schema: S, file: string): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [`cannot read file: ${(err as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  return parseConfig(schema, value, file);
}
