import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the lint, without types
import { catalogProblems, literalProblems, untranslated } from '../../hub/scripts/check-i18n.mjs';
import { repoRoot } from '../support/processes.js';

describe('the language check of npm run lint', () => {
  const en = {
    home: { title: 'Hello, {{name}}', none: 'No bookings ahead.' },
    credits_one: '{{count}} credit',
    credits_other: '{{count}} credits',
  };

  it('passes complete catalogs', () => {
    const de = {
      home: { title: 'Hallo, {{name}}', none: 'Keine anstehenden Buchungen.' },
      credits_one: '{{count}} Guthaben',
      credits_other: '{{count}} Guthaben',
    };
    expect(catalogProblems({ en, de })).toEqual([]);
  });

  it('names a missing key, an extra key, an empty message and other placeholders', () => {
    const de = {
      home: { title: 'Hallo, {{vorname}}', typo: 'x' },
      credits_one: '',
      credits_other: '{{count}} Guthaben',
    };
    expect(catalogProblems({ en, de }).sort()).toEqual(
      [
        'de: credits_one is empty',
        'de: missing home.none',
        'de: home.typo is not in en.json (a typo, or a key no longer used)',
        'de: home.title has {{vorname}}, en has {{name}}',
      ].sort(),
    );
  });

  it('asks a language for every plural form it has (Polish: one, few, many, other)', () => {
    const pl = {
      home: { title: 'Cześć, {{name}}', none: 'Brak rezerwacji.' },
      credits_one: '{{count}} kredyt',
      credits_other: '{{count}} kredytu',
    };
    expect(catalogProblems({ en, pl })).toEqual([
      'pl: missing credits_few (plural)',
      'pl: missing credits_many (plural)',
    ]);
  });

  it('finds text outside t(...) in JSX and in the attributes people read or hear', () => {
    const screen = `
      export function Page({ n }: { n: number }) {
        return (
          <main>
            <h1>Bookings</h1>
            <p>{t('home.none')}</p>
            <button aria-label="Close" title={t('x')}>×</button>
            <input placeholder={n ? 'Search' : t('y')} />
            <Field label={\`Amount (\${n})\`} />
            <p>{n === 1 ? 'one member' : t('z')}</p>
            <span class="badge ok" data-testid="verdict">{n} · {'–'}</span>
            <label aria-hidden="true">Website<input name="website" /></label>
          </main>
        );
      }`;
    expect(literalProblems(screen, 'page.tsx')).toEqual([
      'page.tsx:5: Bookings',
      'page.tsx:7: aria-label="Close"',
      "page.tsx:8: placeholder='Search'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the screen's source text
      'page.tsx:9: label=`Amount (${n})`',
      "page.tsx:10: 'one member'",
    ]);
  });

  it('finds a message a screen keeps in its state, not a state’s name', () => {
    const screen = `
      export function Page({ n }: { n: number }) {
        setNotice('The door is not held open now.');
        setStatus(\`Invoicing… \${n} %\`);
        setError(n ? t('a') : 'Export failed.');
        setMode('new');
        setState(n ? 'busy' : 'idle');
        setNotice(t('admin.saved', { n }));
        return null;
      }`;
    expect(literalProblems(screen, 'page.tsx')).toEqual([
      "page.tsx:3: 'The door is not held open now.'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the screen's source text
      'page.tsx:4: `Invoicing… ${n} %`',
      "page.tsx:5: 'Export failed.'",
    ]);
  });

  it('holds for the app today: catalogs complete, translated screens clean, the rest listed', () => {
    const catalog = (l: string) =>
      JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n', `${l}.json`), 'utf8'));
    expect(catalogProblems({ en: catalog('en'), de: catalog('de') })).toEqual([]);
    expect(catalogProblems({ en: catalog('admin-en'), de: catalog('admin-de') })).toEqual([]);
    for (const page of [
      'pages/home.tsx',
      'pages/machine.tsx',
      'pages/account.tsx',
      'pages/sign-in.tsx',
      'main.tsx',
    ]) {
      expect(untranslated).not.toContain(page);
      expect(literalProblems(readFileSync(join(repoRoot, 'web/src', page), 'utf8'), page)).toEqual([]);
    }
  });
});
