import type { CapturedMail, MailCatcher } from '../support/mail.js';

/** A captured mail read as a person would: the subject and the text of every part, decoded. */
export interface ReadMail {
  to: string[];
  subject: string;
  /** Every part's text (quoted-printable and base64 undone), headers included. */
  body: string;
}

/** Undoes RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, data: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h) => String.fromCharCode(Number.parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

export function readMail(mail: CapturedMail): ReadMail {
  // The catcher undid quoted-printable byte by byte: the bytes are UTF-8.
  const raw = Buffer.from(mail.text, 'latin1').toString('utf8');
  // The catcher also took an encoded word's closing `?=` before a line break for a soft break.
  const headers = mail.text
    .slice(0, mail.text.indexOf('\r\n\r\n'))
    .replace(/(=\?UTF-8\?[QB]\?[^?]*\?)(?!=)/gi, '$1=\r\n')
    .replace(/\r\n[ \t]+/g, ' ');
  const subject = decodeWords(/^Subject: (.*)$/im.exec(headers)?.[1] ?? '');
  // base64 parts: decoded in place.
  const body = raw.replace(
    /Content-Transfer-Encoding: base64\r\n((?:[^\r\n]+\r\n)*)\r\n([A-Za-z0-9+/=\r\n]+)/g,
    (_, more: string, data: string) =>
      `${more}\r\n${Buffer.from(data.replace(/\r\n/g, ''), 'base64').toString('utf8')}\r\n`,
  );
  return { to: mail.to, subject, body };
}

/** The next mail to `to` whose subject matches (waits for it); mails taken once are not answered again. */
export async function mailTo(
  catcher: MailCatcher,
  taken: Set<CapturedMail>,
  to: string,
  subject: RegExp,
  timeoutMs = 10_000,
): Promise<ReadMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const m of catcher.mails) {
      if (taken.has(m) || !m.to.includes(to)) continue;
      const read = readMail(m);
      if (subject.test(read.subject)) {
        taken.add(m);
        return read;
      }
    }
    if (Date.now() > deadline) {
      const seen = catcher.mails.filter((m) => m.to.includes(to)).map((m) => readMail(m).subject);
      throw new Error(
        `no mail to ${to} matching ${subject} within ${timeoutMs} ms; got: ${seen.join(' | ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Subjects of all mails to `to` so far. */
export const subjectsTo = (catcher: MailCatcher, to: string) =>
  catcher.mails.filter((m) => m.to.includes(to)).map((m) => readMail(m).subject);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
