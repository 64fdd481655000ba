#!/usr/bin/env node
/**
 * The web app's languages (docs/TRANSLATING.md): fails (exit 1) when a catalog of
 * web/src/i18n/ misses a key of the English one (or a plural form its language needs), has a key
 * English does not, an empty message, or other {{placeholders}} than English; and when a screen
 * (web/src/**\/*.tsx) shows a literal to people outside t(...): JSX text, or a string in a
 * user-visible attribute (title, placeholder, aria-label, alt, label...), or a message with words
 * handed to a state setter (`setNotice('Saved.')`). Screens not yet
 * translated are listed in `untranslated` below and counted in the output; a listed screen
 * that has become clean fails too, so the list only shrinks.
 * Usage: node hub/scripts/check-i18n.mjs
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webSource = join(root, 'web', 'src');
const catalogDir = join(webSource, 'i18n');

/** Screens still in English only (paths under web/src). Translate one, then take it off. */
export const untranslated = [];

/** Attributes whose text people read or hear. */
const visibleAttributes = new Set([
  'title',
  'placeholder',
  'alt',
  'label',
  'aria-label',
  'aria-description',
  'aria-valuetext',
  'aria-roledescription',
  // A table cell's column name, shown before it on a phone (admin.css).
  'data-label',
]);

const hasLetter = (text) => /\p{L}/u.test(text);

/** `{a: {b: 'x'}}` -> `{'a.b': 'x'}`. */
export function flatten(catalog, prefix = '', out = {}) {
  for (const [key, value] of Object.entries(catalog)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object') flatten(value, path, out);
    else out[path] = value;
  }
  return out;
}

const pluralSuffix = /_(zero|one|two|few|many|other)$/;
const placeholders = (text) =>
  [...String(text).matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

/**
 * What is wrong with the catalogs, as lines: `catalogs` maps a language to its (nested) catalog;
 * the reference language's keys are the ones every other must have.
 */
export function catalogProblems(catalogs, reference = 'en') {
  const problems = [];
  const base = flatten(catalogs[reference] ?? {});
  for (const [language, catalog] of Object.entries(catalogs)) {
    const messages = flatten(catalog);
    for (const [key, text] of Object.entries(messages)) {
      if (typeof text !== 'string' || !text.trim()) problems.push(`${language}: ${key} is empty`);
    }
    if (language === reference) continue;
    for (const key of Object.keys(base)) {
      if (!(key in messages)) problems.push(`${language}: missing ${key}`);
    }
    for (const key of Object.keys(messages)) {
      if (!(key in base))
        problems.push(`${language}: ${key} is not in ${reference}.json (a typo, or a key no longer used)`);
    }
    // A plural needs every form the language has (Polish: one, few, many, other).
    const plurals = new Set(
      Object.keys(base)
        .filter((k) => pluralSuffix.test(k))
        .map((k) => k.replace(pluralSuffix, '')),
    );
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    for (const plural of plurals) {
      for (const category of categories) {
        if (!(`${plural}_${category}` in messages))
          problems.push(`${language}: missing ${plural}_${category} (plural)`);
      }
    }
    for (const [key, text] of Object.entries(messages)) {
      if (!(key in base) || typeof text !== 'string') continue;
      // A plural form may leave out {{count}} ("day" for one); otherwise the same placeholders.
      const want = placeholders(base[key]).filter((p) => !(pluralSuffix.test(key) && p === 'count'));
      const have = placeholders(text).filter((p) => !(pluralSuffix.test(key) && p === 'count'));
      if (want.join() !== have.join())
        problems.push(
          `${language}: ${key} has {{${have.join(', ')}}}, ${reference} has {{${want.join(', ')}}}`,
        );
    }
  }
  return problems;
}

/** A string the expression shows as it is (through `a ? 'x' : 'y'`, `a && 'x'`, `a ?? 'x'`, parentheses). */
function shownLiterals(node) {
  if (!node) return [];
  if (ts.isParenthesizedExpression(node)) return shownLiterals(node.expression);
  if (ts.isConditionalExpression(node))
    return [...shownLiterals(node.whenTrue), ...shownLiterals(node.whenFalse)];
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) return shownLiterals(node.right);
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken)
      return [...shownLiterals(node.left), ...shownLiterals(node.right)];
    if (op === ts.SyntaxKind.PlusToken) return [...shownLiterals(node.left), ...shownLiterals(node.right)];
    return [];
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return hasLetter(node.text) ? [node] : [];
  if (ts.isTemplateExpression(node)) {
    const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
    return parts.some(hasLetter) ? [node] : [];
  }
  return [];
}

function isHidden(opening) {
  return opening.attributes.properties.some((a) => {
    if (!ts.isJsxAttribute(a) || a.name.getText() !== 'aria-hidden' || !a.initializer) return false;
    const init = a.initializer;
    if (ts.isStringLiteral(init)) return init.text === 'true';
    return ts.isJsxExpression(init) && init.expression?.kind === ts.SyntaxKind.TrueKeyword;
  });
}

/** The untranslated literals of one screen's source, as `file:line: text` lines. */
export function literalProblems(source, fileName = 'screen.tsx') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const problems = [];
  const report = (node, text) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    problems.push(`${fileName}:${line + 1}: ${text.replace(/\s+/g, ' ').trim().slice(0, 80)}`);
  };
  const visit = (node) => {
    // What is hidden from people (a trap field for bots) needs no translation.
    if (ts.isJsxElement(node) && isHidden(node.openingElement)) return;
    if (ts.isJsxText(node)) {
      if (hasLetter(node.text)) report(node, node.text);
    } else if (ts.isJsxAttribute(node)) {
      const name = node.name.getText(file);
      if (visibleAttributes.has(name) && node.initializer) {
        const init = node.initializer;
        if (ts.isStringLiteral(init)) {
          if (hasLetter(init.text)) report(init, `${name}="${init.text}"`);
        } else if (ts.isJsxExpression(init)) {
          for (const literal of shownLiterals(init.expression))
            report(literal, `${name}=${literal.getText(file)}`);
        }
      }
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      /^set[A-Z]/.test(node.expression.text)
    ) {
      // A message a screen keeps in its state to show (`setNotice('Saved.')`): words, not a
      // state's name (`setMode('new')`).
      for (const arg of node.arguments)
        for (const literal of shownLiterals(arg))
          if (/\p{L}[\s.…!?:]/u.test(literal.getText(file).slice(1, -1)))
            report(literal, literal.getText(file));
    } else if (
      ts.isJsxExpression(node) &&
      node.parent &&
      (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))
    ) {
      for (const literal of shownLiterals(node.expression)) report(literal, literal.getText(file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return problems;
}

function* screens(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* screens(path);
    else if (entry.name.endsWith('.tsx')) yield path;
  }
}

function main() {
  // `en.json`, `de.json`: the app's catalogs; `admin-en.json`, `admin-de.json`: the console's.
  const parts = {};
  for (const name of readdirSync(catalogDir).filter((n) => n.endsWith('.json'))) {
    const [, part = 'app', language] = name.match(/^(?:(.+)-)?([a-z]{2,3}(?:-[A-Za-z]+)?)\.json$/) ?? [];
    if (!language) continue;
    parts[part] = { ...parts[part], [language]: JSON.parse(readFileSync(join(catalogDir, name), 'utf8')) };
  }
  const problems = Object.entries(parts).flatMap(([part, catalogs]) =>
    catalogProblems(catalogs).map((p) => (part === 'app' ? p : `${part}-${p}`)),
  );
  const catalogs = parts.app ?? {};
  const waiting = new Set(untranslated);
  const seen = new Set();
  for (const path of screens(webSource)) {
    const name = relative(webSource, path).split(sep).join('/');
    const found = literalProblems(readFileSync(path, 'utf8'), `web/src/${name}`);
    if (waiting.has(name)) {
      seen.add(name);
      if (found.length === 0)
        problems.push(
          `web/src/${name} has no untranslated text now: take it off the list in hub/scripts/check-i18n.mjs`,
        );
    } else problems.push(...found);
  }
  for (const name of waiting)
    if (!seen.has(name)) problems.push(`listed screen web/src/${name} does not exist`);
  if (problems.length) {
    console.error(`Languages: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
    return;
  }
  const left = untranslated.length
    ? `${untranslated.length} screen(s) still to translate (listed in hub/scripts/check-i18n.mjs)`
    : 'every screen translated';
  console.log(`Languages: ${Object.keys(catalogs).length} catalogs complete; ${left}.`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
