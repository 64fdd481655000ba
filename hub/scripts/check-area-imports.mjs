#!/usr/bin/env node
/**
 * Areas side by side (docs/ARCHITECTURE.md): the area folders of hub/src import each other
 * one way only; shared types, money, time zones and the caller live in the kernel, and an area
 * reaches another one's rules through a port of the context. Fails (exit 1) when the folder
 * graph of the areas has a circle (two areas importing each other, or a longer ring), naming
 * the files of each import on it. Type-only imports count: a type is a dependency too.
 * Usage: node hub/scripts/check-area-imports.mjs
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = join(root, 'hub', 'src');
const areas = [
  'identity',
  'access',
  'spaces',
  'billing',
  'keys',
  'resources',
  'sign-in',
  'reports',
  'notifications',
  'sign-up',
  'presence',
  'problems',
  'import',
  'shadow',
];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const areaOf = (path) => {
  const first = relative(source, path).split(sep)[0];
  return areas.includes(first) ? first : null;
};

/** edges.get(from).get(to) = ["file -> import", ...] */
const edges = new Map(areas.map((a) => [a, new Map()]));
const specifier = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
for (const area of areas) {
  let dir;
  try {
    dir = [...files(join(source, area))];
  } catch {
    continue;
  }
  for (const file of dir) {
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      const target = areaOf(resolve(dirname(file), match[1]));
      if (!target || target === area) continue;
      const list = edges.get(area).get(target) ?? [];
      list.push(`${relative(root, file)} -> ${match[1]}`);
      edges.get(area).set(target, list);
    }
  }
}

// A ring of area folders: depth-first search over the folder graph.
const rings = [];
const state = new Map();
const path = [];
function visit(area) {
  state.set(area, 'open');
  path.push(area);
  for (const next of edges.get(area).keys()) {
    if (state.get(next) === 'open') rings.push([...path.slice(path.indexOf(next)), next]);
    else if (!state.has(next)) visit(next);
  }
  path.pop();
  state.set(area, 'done');
}
for (const area of areas) if (!state.has(area)) visit(area);

if (rings.length === 0) process.exit(0);
console.error('Area folders that import each other (an area reaches another one way only):');
for (const ring of rings) {
  console.error(`  ${ring.join(' -> ')}`);
  for (let i = 0; i + 1 < ring.length; i++) {
    for (const line of edges.get(ring[i]).get(ring[i + 1])) console.error(`      ${line}`);
  }
}
process.exit(1);
