import i18next from 'i18next';
import { useEffect, useState } from 'preact/hooks';
import de from './de.json';
import en from './en.json';

/**
 * The app's words: one catalog per language (en.json is the reference, docs/TRANSLATING.md),
 * i18next for lookup and plurals (`key_one`/`key_other`, chosen by Intl.PluralRules), and the
 * locale that Intl formats dates, times and money with. The admin console's words
 * (admin-en.json, ...) come with its own chunk (admin-catalogs.ts), so members never load them.
 */
export type Catalog = typeof en;
export type AdminCatalog = typeof import('./admin-en.json');
// Every language has every key of the English catalog: a missing one is a type error here.
const catalogs = { en, de } satisfies Record<string, Catalog>;

export type Language = keyof typeof catalogs;
/** Each language in its own words, for the language switch. */
export const languageNames: Record<Language, string> = { en: 'English', de: 'Deutsch' };
export const languages = Object.keys(catalogs) as Language[];
/** The locale Intl formats with: day before month, 24-hour clock, in both languages. */
const locales: Record<Language, string> = { en: 'en-GB', de: 'de-DE' };

declare module 'i18next' {
  interface CustomTypeOptions {
    resources: { translation: Catalog & AdminCatalog };
    returnNull: false;
  }
}

const i18n = i18next.createInstance();
void i18n.init({
  resources: Object.fromEntries(Object.entries(catalogs).map(([lng, c]) => [lng, { translation: c }])),
  lng: 'en',
  fallbackLng: 'en',
  // Preact escapes what it renders; escaping here too would show "&amp;".
  interpolation: { escapeValue: false },
  initAsync: false,
});
// `{{what, lowercase}}`: a label used inside a sentence, where English lowercases it and German keeps its nouns.
i18n.services.formatter?.add('lowercase', (value) => String(value).toLowerCase());

/** Adds the words of a part loaded later (the admin console) to every language. */
export function addCatalogs(parts: Record<Language, object>): void {
  for (const [language, part] of Object.entries(parts))
    i18n.addResourceBundle(language, 'translation', part, true, true);
}

/** Looks a message up in the current language: `t('home.title')`, `t('home.credits', { count })`. */
export const t = i18n.t.bind(i18n);

/**
 * The language to show: the member's own (`language` of their record, "de" or "de-AT"), else the
 * first of the browser's languages we have, else English.
 */
export function pickLanguage(member: string | null | undefined, browser: readonly string[] = []): Language {
  for (const tag of [member, ...browser]) {
    const base = tag?.toLowerCase().split(/[-_]/)[0];
    if (base && base in catalogs) return base as Language;
  }
  return 'en';
}

export function currentLanguage(): Language {
  return (i18n.language as Language) ?? 'en';
}

/** The locale for Intl: `new Intl.DateTimeFormat(locale(), …)`. */
export function locale(): string {
  return locales[currentLanguage()];
}

const listeners = new Set<() => void>();

/** Switches the language of every page (and the document's `lang`), at once. */
export function setLanguage(language: Language): void {
  if (language === i18n.language) return;
  void i18n.changeLanguage(language);
  if (typeof document !== 'undefined') document.documentElement.lang = language;
  for (const listener of listeners) listener();
}

/** The current language; the component renders again when it changes. */
export function useLanguage(): Language {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return currentLanguage();
}

/** The browser's languages, most wanted first. */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** A message whose key is made at run time (a log type, a reason); `fallback` when the catalog has none. */
export function tOr(key: string, fallback: string, vars: Record<string, unknown> = {}): string {
  return i18n.exists(key) ? String(i18n.t(key as never, vars as never)) : fallback;
}

const mark = '\u0001';
/** A placeholder for `rich`: `t('join.sentLink', { email: slot('email') })`. */
export const slot = (name: string): string => `${mark}${name}${mark}`;

/**
 * A translated sentence with elements inside (a bold address, a link), without HTML in the
 * catalog: `rich(t('k', { email: slot('email') }), { email: <strong>{email}</strong> })`.
 */
export function rich<T>(text: string, parts: Record<string, T>): (string | T)[] {
  return text.split(mark).map((piece, i) => (i % 2 === 1 && piece in parts ? parts[piece] : piece));
}

/** An amount of money in the current language: "12,50 €" in German, "€12.50" in English. */
export function money(amount: string | number, currency: string | null | undefined): string {
  const n = Number(amount);
  if (!Number.isFinite(n)) return String(amount);
  if (!currency)
    return new Intl.NumberFormat(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n);
  try {
    return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(n);
  } catch {
    return `${new Intl.NumberFormat(locale(), { minimumFractionDigits: 2 }).format(n)} ${currency}`;
  }
}

/** A calendar day (YYYY-MM-DD) in words: "24 Dec 2026", "24. Dez. 2026". */
export function dayText(date: string): string {
  return new Date(`${date.slice(0, 10)}T12:00:00Z`).toLocaleDateString(locale(), {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  });
}
