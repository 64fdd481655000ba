import sanitizeHtml from 'sanitize-html';

/** The small HTML subset rich-text fields keep (member notes, resource descriptions, ...). */
const options: sanitizeHtml.IOptions = {
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
  return sanitizeHtml(html, options);
}
