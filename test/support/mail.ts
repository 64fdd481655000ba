import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  /** The message as sent, with quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port> */
  url: string;
  mails: CapturedMail[];
  /** The next mail to `to` (waits for it). */
  next(to: string, timeoutMs?: number): Promise<CapturedMail>;
  /** Refuse every message from now on (true) or accept again (false). */
  failing(on: boolean): void;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/** A local SMTP server on 127.0.0.1 (port 0) that keeps every message it receives. */
export async function startMailCatcher(): Promise<MailCatcher> {
  const mails: CapturedMail[] = [];
  const seen = new Set<CapturedMail>();
  let refuse = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = mails.find((m) => !seen.has(m) && m.to.includes(to));
        if (mail) {
          seen.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    failing(on) {
      refuse = on;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the sign-in link in a mail. */
export function linkToken(mail: CapturedMail): string {
  const match = /\/sign-in\/link#token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match) throw new Error('no sign-in link in the mail');
  return match[1];
}
