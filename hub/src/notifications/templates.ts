import type { NotificationKind } from './kinds.js';

/**
 * The mails' words, in English and German, as plain functions: each kind gives a subject and
 * paragraphs, from which the text and the HTML part are made (the HTML escaped here, once). No
 * template engine: a dozen short mails do not need one (docs/DECISIONS.md).
 */

export type Language = 'en' | 'de';

/** German for a member whose language (else the space's locale) is German; English otherwise. */
export function languageOf(member: string | null, space: string | null): Language {
  const tag = (member || space || 'en').toLowerCase();
  return tag.startsWith('de') ? 'de' : 'en';
}

export interface MailContext {
  language: Language;
  /** The recipient's first name. */
  name: string;
  spaceName: string;
  timezone: string;
  /** Where the member changes which mails they receive (the account page). */
  settingsUrl: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

type Params = Record<string, any>;
interface Words {
  subject: string;
  paragraphs: string[];
}
type Template = Record<Language, (p: Params, f: Format) => Words>;

interface Format {
  /** A date and time in the space's zone. */
  when(iso: string): string;
  /** A calendar day (YYYY-MM-DD) as people write it. */
  day(date: string): string;
  /** An amount ("12.5") in its currency as the language writes it: "€12.50", "12,50 €". */
  money(amount: string, currency?: string): string;
}

function formatFor(language: Language, timezone: string): Format {
  const locale = language === 'de' ? 'de-DE' : 'en-GB';
  const dateTime = new Intl.DateTimeFormat(locale, {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  const dayFormat = new Intl.DateTimeFormat(locale, {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
  return {
    when: (iso) => dateTime.format(new Date(iso)),
    day: (date) => dayFormat.format(new Date(`${date}T00:00:00Z`)),
    money: (amount, currency) => money(locale, amount, currency),
  };
}

/** Intl's way of writing an amount; one it cannot read, or a currency it does not know, stays as given. */
function money(locale: string, amount: string, currency?: string): string {
  const n = Number(amount);
  if (!Number.isFinite(n)) return currency ? `${amount} ${currency}` : amount;
  try {
    return new Intl.NumberFormat(locale, {
      ...(currency ? { style: 'currency', currency } : {}),
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }).format(n);
  } catch {
    return currency ? `${amount} ${currency}` : amount;
  }
}

const templates: Record<NotificationKind, Template> = {
  invoiceIssued: {
    en: (p, f) => ({
      subject: `Invoice ${p.number}`,
      paragraphs: [
        `your invoice ${p.number} of ${f.money(p.total, p.currency)} has been issued${p.dueDate ? `; it is due on ${f.day(p.dueDate)}` : ''}.`,
        'You find it under Billing on your account page.',
      ],
    }),
    de: (p, f) => ({
      subject: `Rechnung ${p.number}`,
      paragraphs: [
        `deine Rechnung ${p.number} über ${f.money(p.total, p.currency)} wurde ausgestellt${p.dueDate ? `; sie ist am ${f.day(p.dueDate)} fällig` : ''}.`,
        'Du findest sie unter Abrechnung auf deiner Kontoseite.',
      ],
    }),
  },
  paymentReceived: {
    en: (p, f) => ({
      subject: `Payment of ${f.money(p.total, p.currency)} received`,
      paragraphs: [`thank you: we received your payment of ${f.money(p.total, p.currency)}.`],
    }),
    de: (p, f) => ({
      subject: `Zahlung über ${f.money(p.total, p.currency)} erhalten`,
      paragraphs: [`danke: wir haben deine Zahlung über ${f.money(p.total, p.currency)} erhalten.`],
    }),
  },
  paymentFailed: {
    en: (p, f) => ({
      subject: `Payment of ${f.money(p.total, p.currency)} failed`,
      paragraphs: [
        `your payment of ${f.money(p.total, p.currency)} did not go through${p.reason ? ` (${p.reason})` : ''}.`,
        'Please check your payment method, or talk to us.',
      ],
    }),
    de: (p, f) => ({
      subject: `Zahlung über ${f.money(p.total, p.currency)} fehlgeschlagen`,
      paragraphs: [
        `deine Zahlung über ${f.money(p.total, p.currency)} ist nicht durchgegangen${p.reason ? ` (${p.reason})` : ''}.`,
        'Bitte prüfe deine Zahlungsart oder sprich uns an.',
      ],
    }),
  },
  balanceLow: {
    en: (p, f) => ({
      subject: 'Your balance is low',
      paragraphs: [`your prepaid balance is now ${f.money(p.balance, p.currency)}.`, 'Please top it up.'],
    }),
    de: (p, f) => ({
      subject: 'Dein Guthaben ist niedrig',
      paragraphs: [`dein Guthaben beträgt jetzt ${f.money(p.balance, p.currency)}.`, 'Bitte lade es auf.'],
    }),
  },
  bookingMade: {
    en: (p, f) => ({
      subject: `Booked: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `you booked ${p.resourceName} from ${f.when(p.from)} to ${f.when(p.until)}.`,
        'The attached calendar file puts it in your calendar.',
      ],
    }),
    de: (p, f) => ({
      subject: `Gebucht: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `du hast ${p.resourceName} von ${f.when(p.from)} bis ${f.when(p.until)} gebucht.`,
        'Die angehängte Kalenderdatei trägt die Buchung in deinen Kalender ein.',
      ],
    }),
  },
  bookingChanged: {
    en: (p, f) => ({
      subject: `Booking changed: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `your booking of ${p.resourceName} is now from ${f.when(p.from)} to ${f.when(p.until)}.`,
        'The attached calendar file updates your calendar.',
      ],
    }),
    de: (p, f) => ({
      subject: `Buchung geändert: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `deine Buchung von ${p.resourceName} ist jetzt von ${f.when(p.from)} bis ${f.when(p.until)}.`,
        'Die angehängte Kalenderdatei aktualisiert deinen Kalender.',
      ],
    }),
  },
  bookingCancelled: {
    en: (p, f) => ({
      subject: `Booking cancelled: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `your booking of ${p.resourceName} from ${f.when(p.from)} to ${f.when(p.until)} is cancelled.`,
        'The attached calendar file removes it from your calendar.',
      ],
    }),
    de: (p, f) => ({
      subject: `Buchung storniert: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `deine Buchung von ${p.resourceName} von ${f.when(p.from)} bis ${f.when(p.until)} ist storniert.`,
        'Die angehängte Kalenderdatei entfernt sie aus deinem Kalender.',
      ],
    }),
  },
  bookingReminder: {
    en: (p, f) => ({
      subject: `Reminder: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [`a reminder: you booked ${p.resourceName} from ${f.when(p.from)} to ${f.when(p.until)}.`],
    }),
    de: (p, f) => ({
      subject: `Erinnerung: ${p.resourceName}, ${f.when(p.from)}`,
      paragraphs: [
        `zur Erinnerung: du hast ${p.resourceName} von ${f.when(p.from)} bis ${f.when(p.until)} gebucht.`,
      ],
    }),
  },
  packageEnding: {
    en: (p, f) => ({
      subject: `Your package ${p.packageName} ends on ${f.day(p.untilDate)}`,
      paragraphs: [
        `your package ${p.packageName} ends on ${f.day(p.untilDate)}.`,
        'Talk to us if you want to keep it.',
      ],
    }),
    de: (p, f) => ({
      subject: `Dein Paket ${p.packageName} endet am ${f.day(p.untilDate)}`,
      paragraphs: [
        `dein Paket ${p.packageName} endet am ${f.day(p.untilDate)}.`,
        'Sprich uns an, wenn du es behalten möchtest.',
      ],
    }),
  },
  trainingExpiring: {
    en: (p, f) => ({
      subject: `Your training ${p.courseTitle} expires on ${f.day(p.untilDate)}`,
      paragraphs: [
        `your training ${p.courseTitle} is valid until ${f.day(p.untilDate)}.`,
        'Book a refresher in time to keep using the machines it covers.',
      ],
    }),
    de: (p, f) => ({
      subject: `Deine Einweisung ${p.courseTitle} läuft am ${f.day(p.untilDate)} ab`,
      paragraphs: [
        `deine Einweisung ${p.courseTitle} gilt bis ${f.day(p.untilDate)}.`,
        'Frische sie rechtzeitig auf, um die Maschinen weiter zu nutzen.',
      ],
    }),
  },
  cardLost: {
    en: () => ({
      subject: 'Your key card is blocked',
      paragraphs: [
        'your key card was reported lost and no longer opens anything.',
        'If this was not you, or you found the card again, talk to an admin: they can unblock it.',
      ],
    }),
    de: () => ({
      subject: 'Deine Schlüsselkarte ist gesperrt',
      paragraphs: [
        'deine Schlüsselkarte wurde als verloren gemeldet und öffnet nichts mehr.',
        'Falls du das nicht warst oder die Karte wiedergefunden hast, sprich einen Admin an: er kann sie entsperren.',
      ],
    }),
  },
  problemReported: {
    en: (p) => ({
      subject: `${p.severity === 'unsafe' ? 'Unsafe: ' : 'Problem reported: '}${p.resourceName}`,
      paragraphs: [
        `${p.reporterName} reported a problem with ${p.resourceName}${p.severity === 'unsafe' ? ', marked unsafe: the machine is locked until the report is resolved' : ''}.`,
        `“${p.description}”`,
        'Resolve it on the machine’s page or in the admin console once it is fixed.',
      ],
    }),
    de: (p) => ({
      subject: `${p.severity === 'unsafe' ? 'Unsicher: ' : 'Problem gemeldet: '}${p.resourceName}`,
      paragraphs: [
        `${p.reporterName} hat ein Problem mit ${p.resourceName} gemeldet${p.severity === 'unsafe' ? ', als unsicher: die Maschine ist gesperrt, bis die Meldung erledigt ist' : ''}.`,
        `„${p.description}“`,
        'Erledige sie auf der Seite der Maschine oder in der Verwaltung, sobald das Problem behoben ist.',
      ],
    }),
  },
  signUpWaiting: {
    en: (p) => ({
      subject: `Sign-up waiting: ${p.memberName}`,
      paragraphs: [
        `${p.memberName} (${p.emailAddress}) signed up and confirmed their e-mail address.`,
        'Approve or reject them under Sign-ups in the admin console.',
      ],
    }),
    de: (p) => ({
      subject: `Anmeldung wartet: ${p.memberName}`,
      paragraphs: [
        `${p.memberName} (${p.emailAddress}) hat sich angemeldet und die E-Mail-Adresse bestätigt.`,
        'Nimm die Anmeldung unter „Anmeldungen“ in der Verwaltung an oder lehne sie ab.',
      ],
    }),
  },
  bridgeOffline: {
    en: (p, f) => ({
      subject: `Bridge offline: ${p.resourceName}`,
      paragraphs: [
        `the bridge of ${p.resourceName} has been offline since ${f.when(p.lastSeenAt)}.`,
        'Members cannot switch it on through the hub until it is back.',
      ],
    }),
    de: (p, f) => ({
      subject: `Bridge nicht erreichbar: ${p.resourceName}`,
      paragraphs: [
        `die Bridge von ${p.resourceName} ist seit ${f.when(p.lastSeenAt)} offline.`,
        'Mitglieder können die Ressource über den Hub nicht einschalten, bis sie wieder da ist.',
      ],
    }),
  },
  webhookFailing: {
    en: (p, f) => ({
      subject: `Webhook failing: ${p.label}`,
      paragraphs: [
        `the webhook ${p.label} has failed ${p.failures} times in a row${p.failingSince ? ` since ${f.when(p.failingSince)}` : ''}.`,
        'Its events wait in the queue; see Webhooks in the admin console.',
      ],
    }),
    de: (p, f) => ({
      subject: `Webhook fehlerhaft: ${p.label}`,
      paragraphs: [
        `der Webhook ${p.label} ist ${p.failures}-mal in Folge fehlgeschlagen${p.failingSince ? ` (seit ${f.when(p.failingSince)})` : ''}.`,
        'Seine Ereignisse warten in der Warteschlange; siehe Webhooks in der Verwaltung.',
      ],
    }),
  },
  memberPaymentFailed: {
    en: (p, f) => ({
      subject: `Payment failed: ${p.memberName}, ${f.money(p.total, p.currency)}`,
      paragraphs: [
        `a payment of ${f.money(p.total, p.currency)} by ${p.memberName} failed${p.reason ? ` (${p.reason})` : ''}.`,
      ],
    }),
    de: (p, f) => ({
      subject: `Zahlung fehlgeschlagen: ${p.memberName}, ${f.money(p.total, p.currency)}`,
      paragraphs: [
        `eine Zahlung über ${f.money(p.total, p.currency)} von ${p.memberName} ist fehlgeschlagen${p.reason ? ` (${p.reason})` : ''}.`,
      ],
    }),
  },
};

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A mail of `kind` with its parameters, for the recipient of `ctx`. */
export function renderMail(kind: NotificationKind, params: Params, ctx: MailContext): RenderedMail {
  const de = ctx.language === 'de';
  const words = templates[kind][ctx.language](params, formatFor(ctx.language, ctx.timezone));
  const greeting = de ? `Hallo ${ctx.name},` : `Hello ${ctx.name},`;
  // The first paragraph continues the greeting ("Hello Ada, your invoice ...").
  const body = words.paragraphs;
  const footer = de
    ? `Diese Mail kommt von ${ctx.spaceName}. Welche Mails du bekommst, stellst du hier ein: ${ctx.settingsUrl}`
    : `This mail comes from ${ctx.spaceName}. Choose which mails you receive here: ${ctx.settingsUrl}`;
  const text = [greeting, ...body, '--', footer].join('\n\n');
  const p = (s: string) => `<p style="margin:0 0 1em">${escapeHtml(s)}</p>`;
  const link = `<a href="${escapeHtml(ctx.settingsUrl)}">${escapeHtml(ctx.settingsUrl)}</a>`;
  const footerHtml = de
    ? `Diese Mail kommt von ${escapeHtml(ctx.spaceName)}. Welche Mails du bekommst, stellst du hier ein: ${link}`
    : `This mail comes from ${escapeHtml(ctx.spaceName)}. Choose which mails you receive here: ${link}`;
  const html = `<!doctype html>
<html lang="${ctx.language}"><head><meta charset="utf-8"><title>${escapeHtml(words.subject)}</title></head>
<body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#222;max-width:36em;margin:1em auto;padding:0 1em">
${p(greeting)}
${body.map(p).join('\n')}
<hr style="border:0;border-top:1px solid #ccc;margin:2em 0 1em">
<p style="font-size:13px;color:#666">${footerHtml}</p>
</body></html>`;
  return { subject: words.subject, text, html };
}
