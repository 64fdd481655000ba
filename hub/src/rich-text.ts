import type sanitizeHtmlModule from 'sanitize-html';
import { onFirstUse } from './kernel/on-first-use.js';

/** sanitize-html, loaded on the first rich text to clean. */
const sanitizeHtml = onFirstUse<typeof sanitizeHtmlModule>('sanitize-html');

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
  return sanitizeHtml()(html, options);
}
