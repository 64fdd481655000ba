import { createTransport, type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Files sent with the mail (a booking's .ics, an invoice's PDF). */
  attachments?: { filename: string; content: Buffer | string; contentType: string }[];
}

/** Sends e-mail (sign-in links, invitations, notifications). `ctx.mailer` is null when no SMTP is configured. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** A Mailer over SMTP (HUB_SMTP_URL, e.g. smtp://user:pass@mail.example:587). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // Short timeouts: a request waits for the mail server, and a dead one must not hang it.
    this.transport = createTransport(url, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as any);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }

  close(): void {
    this.transport.close();
  }
}
