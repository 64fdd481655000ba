#!/usr/bin/env node
/**
 * Every table has one owner (docs/ARCHITECTURE.md): only hub/src/db/ and `*.repository.ts`
 * files run queries. Fails (exit 1), listing file:line, when any other file of hub/src calls
 * `selectFrom`, `insertInto`, `updateTable`, `deleteFrom` (also as `eb.selectFrom` or a
 * destructured `selectFrom(` in a sub-query) or starts a CTE query with `.with('name', ...)`.
 * Comments and string contents are not read. With --raw it also lists raw SQL run outside
 * them (`sql\`...\`.execute(...)`, db/fast-reads.ts's `rawRows(...)`).
 * Usage: node hub/scripts/check-table-owners.mjs [--raw]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = join(root, 'hub', 'src');

/** Where queries may be written: storage and the areas' repositories. */
const owns = (path) => path.startsWith(`hub/src/db/`) || path.endsWith('.repository.ts');

const query =
  /\b(selectFrom|insertInto|updateTable|deleteFrom)\s*\(\s*(['"`][^'"`]*['"`])?|\.with\s*\(\s*(['"`][^'"`]*['"`])/dg;

/** Raw SQL (--raw): a `sql` template executed at once, or db/fast-reads.ts's rawRows. */
const rawQuery = /\bsql\s*(?:<[^>]*>)?`[^`]*`\s*\.execute\s*\(|\brawRows\s*(?:<[^>]*>)?\(/g;
const withRaw = process.argv.includes('--raw');

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/**
 * The text with comments and the inside of strings blanked (newlines kept, so line numbers
 * stay); a string keeps its quotes, so `selectFrom('members')` is still seen as a call. Template
 * literals are blanked too, but their `${...}` parts are read as code. The length is kept, so
 * an index in the answer is the same in the text.
 */
function codeOnly(text) {
  let out = '';
  /** Open template literals: the brace depth of the `${` each is inside of, innermost last. */
  const templates = [];
  let depth = 0;
  let i = 0;
  const blank = (c) => (c === '\n' ? '\n' : ' ');
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') {
        out += ' ';
        i++;
      }
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      for (; i < stop; i++) out += blank(text[i]);
    } else if (c === "'" || c === '"') {
      out += c;
      i++;
      while (i < text.length && text[i] !== c && text[i] !== '\n') {
        if (text[i] === '\\') {
          out += ' ';
          i++;
        }
        out += blank(text[i] ?? '');
        i++;
      }
      if (i < text.length) out += text[i++];
    } else if (c === '`' || (c === '}' && templates.at(-1) === depth - 1)) {
      // The start of a template literal, or the end of a `${...}` inside one: read its text.
      if (c === '}') {
        templates.pop();
        depth--;
      }
      out += c;
      i++;
      while (i < text.length && text[i] !== '`') {
        if (text[i] === '\\') {
          out += ' ';
          i++;
        } else if (text[i] === '$' && text[i + 1] === '{') {
          templates.push(depth);
          break;
        }
        out += blank(text[i] ?? '');
        i++;
      }
      if (text[i] === '`') out += text[i++];
      else if (text[i] === '$') {
        out += '${';
        i += 2;
        depth++;
      }
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      out += c;
      i++;
    }
  }
  return out;
}

const found = [];
for (const file of files(source)) {
  const path = relative(root, file).split(sep).join('/');
  if (owns(path)) continue;
  const original = readFileSync(file, 'utf8');
  const text = codeOnly(original);
  // Queries outside their owners are few: counting the lines before each is fast enough.
  const lineOf = (index) => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(query)) {
    const call = match[1] ?? 'with';
    const at = match.indices[2] ?? match.indices[3];
    const table = at ? original.slice(at[0], at[1]) : undefined;
    found.push(`${path}:${lineOf(match.index)} ${call}${table ? `(${table})` : ''}`);
  }
  if (withRaw) {
    for (const match of text.matchAll(rawQuery)) {
      found.push(
        `${path}:${lineOf(match.index)} ${match[0].startsWith('sql') ? 'sql`...`.execute' : 'rawRows'}`,
      );
    }
  }
}

if (found.length > 0) {
  console.error(
    `${found.length} queries outside hub/src/db/ and *.repository.ts (each table's owner runs its queries, docs/ARCHITECTURE.md):`,
  );
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
console.log('Table owners: every query is in hub/src/db/ or a *.repository.ts');
