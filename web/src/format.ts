import type { AccessCheck } from './api';
import { dayText, locale, t } from './i18n/i18n';

/** "18:00" in the space's zone, with the weekday when it is not today. */
export function timeIn(iso: string, zone: string, now = new Date()): string {
  const at = new Date(iso);
  const day = (d: Date) => d.toLocaleDateString('en-GB', { timeZone: zone });
  const time = at.toLocaleTimeString(locale(), { timeZone: zone, hour: '2-digit', minute: '2-digit' });
  if (day(at) === day(now)) return time;
  const weekday = at.toLocaleDateString(locale(), {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  return `${weekday} ${time}`;
}

/** A moment in the app's language; in the space's zone when it is known, else the browser's. */
export function dateTime(iso: string, zone?: string | null): string {
  return new Date(iso).toLocaleString(locale(), {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(zone ? { timeZone: zone } : {}),
  });
}

/** 75 -> "1 min 15 s", 3700 -> "1 h 1 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return t('format.hours', { h, m });
  if (m > 0) return t('format.minutes', { m, s: s % 60 });
  return t('format.seconds', { s });
}

/** The stopwatch of a running session: "12:05" or "1:02:05". */
export function elapsed(since: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** The verdict of an access check in words a member acts on (`noun`: the resource is a door or a machine). */
export function verdictText(check: AccessCheck, noun: 'door' | 'machine', retryLeft: number | null): string {
  const until = check.until ? timeIn(check.until, check.timezone) : null;
  const context = noun;
  switch (check.reason) {
    case null:
      return check.maxDuration
        ? t('verdict.allowedFor', { duration: duration(check.maxDuration) })
        : t('verdict.allowed');
    case 'noPackage':
      return t('verdict.noPackage', { context });
    case 'timeTable':
      return t('verdict.timeTable', { context });
    case 'openingHours':
      return until ? t('verdict.closedUntil', { until }) : t('verdict.closed');
    case 'holiday':
      return until ? t('verdict.holidayUntil', { until }) : t('verdict.holiday');
    case 'booking':
      return until ? t('verdict.bookedUntil', { until }) : t('verdict.booked');
    case 'requiresBooking':
      return t('verdict.requiresBooking', { context });
    case 'noPermission': {
      const courses = check.trainingCourses.map((c) => `“${c.title}”`).join(t('format.or'));
      if (check.trainingExpired) {
        const day = dayText(check.trainingExpired);
        return t('verdict.trainingExpired', { context, day, courses: courses ? ` (${courses})` : '' });
      }
      if (!courses) return t('verdict.needTraining', { context });
      return t('verdict.trainingMissing', { courses });
    }
    case 'memberInactive':
      return t('verdict.memberInactive');
    case 'inactive':
      return t('verdict.inactive', { context });
    case 'prepaidBalance':
      return t('verdict.prepaidBalance');
    case 'tooManyAttempts':
      return t('verdict.tooManyAttempts', { duration: duration(retryLeft ?? check.retryAfter ?? 0) });
    case 'staleCode':
      return t('verdict.staleCode');
    case 'occupancyFull':
      return t('verdict.occupancyFull');
    case 'interlock': {
      // The hub's words name the interlock by its label: 'The interlock "Lid" is open: ...'.
      const label = /"([^"]*)"/.exec(check.message)?.[1];
      return label === undefined ? `${check.message}.` : t('verdict.interlock', { label });
    }
    case 'bridgeOffline':
      return t('verdict.bridgeOffline', { context });
    case 'noBridge':
      return t('verdict.noBridge', { context });
    case 'noRemoteSwitch':
      return t('verdict.noRemoteSwitch', { context });
    default:
      return check.message;
  }
}

const browsers: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];

const systems: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A sign-in's device as a member recognises it, from the browser's User-Agent: "Chrome on
 * Android", "Safari on iPhone". A text that names no known browser or system is shown as it is
 * (an app's own name), cut to 60 characters.
 */
export function deviceName(userAgent: string | null): string {
  if (!userAgent?.trim()) return t('format.aBrowser');
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return t('format.browserOn', { browser, system });
  const known = browser ?? system;
  if (known) return known;
  const text = userAgent.trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
