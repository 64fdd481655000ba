import { createRequire } from 'node:module';
import type sanitizeHtmlModule from 'sanitize-html';

/** sanitize-html, loaded on the first rich text to clean. */
let sanitizeHtml: typeof sanitizeHtmlModule | null = null;

/** The small HTML subset rich-text fields keep (member notes, resource descriptions, ...). */
const options: sanitizeHtmlModule.IOptions = {
  allowedTags: [
    'p',
    'br',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'blockquote',
    'code',
    'pre',
  ],
  allowedAttributes: { a: ['href', 'title'] },
  allowedSchemes: ['http', 'https', 'mailto'],
};

export function sanitizeRichText(html: string | null | undefined): string | null | undefined {
  if (html === null || html === undefined) return html;
  sanitizeHtml ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtmlModule;
  return sanitizeHtml(html, options);
}
