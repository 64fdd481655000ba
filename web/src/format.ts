import type { AccessCheck } from './api';

/** "18:00" in the space's zone, with the weekday when it is not today. */
export function timeIn(iso: string, zone: string, now = new Date()): string {
  const at = new Date(iso);
  const day = (d: Date) => d.toLocaleDateString('en-GB', { timeZone: zone });
  const time = at.toLocaleTimeString('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit' });
  if (day(at) === day(now)) return time;
  const weekday = at.toLocaleDateString('en-GB', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  return `${weekday} ${time}`;
}

export function dateTime(iso: string): string {
  return new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** 75 -> "1 min 15 s", 3700 -> "1 h 1 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s % 60} s`;
  return `${s} s`;
}

/** The stopwatch of a running session: "12:05" or "1:02:05". */
export function elapsed(since: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** The verdict of an access check in words a member acts on. */
export function verdictText(check: AccessCheck, noun: string, retryLeft: number | null): string {
  const until = check.until ? timeIn(check.until, check.timezone) : null;
  switch (check.reason) {
    case null:
      return check.maxDuration
        ? `You may use it now, for up to ${duration(check.maxDuration)}.`
        : 'You may use it now.';
    case 'noPackage':
      return `None of your packages allows this ${noun}.`;
    case 'timeTable':
      return `Your package does not allow this ${noun} at this time.`;
    case 'openingHours':
      return until ? `The space is closed until ${until}.` : 'The space is closed now.';
    case 'holiday':
      return until
        ? `The space is closed for a holiday until ${until}.`
        : 'The space is closed for a holiday.';
    case 'booking':
      return until ? `Booked by another member until ${until}.` : 'Booked by another member now.';
    case 'requiresBooking':
      return `This ${noun} must be booked: you have no booking now.`;
    case 'noPermission': {
      const courses = check.trainingCourses.map((c) => `“${c.title}”`);
      if (check.trainingExpired) {
        const day = new Date(`${check.trainingExpired}T12:00:00Z`).toLocaleDateString(undefined, {
          dateStyle: 'medium',
          timeZone: 'UTC',
        });
        return `Your training for this ${noun} expired on ${day}: renew it${courses.length ? ` (${courses.join(' or ')})` : ''}.`;
      }
      if (courses.length === 0) return `You need a training for this ${noun}.`;
      return `Training ${courses.join(' or ')} missing.`;
    }
    case 'memberInactive':
      return 'Your membership is not active.';
    case 'inactive':
      return `This ${noun} is locked.`;
    case 'prepaidBalance':
      return 'Your prepaid balance is too low.';
    case 'tooManyAttempts':
      return `Too many wrong codes. Try again in ${duration(retryLeft ?? check.retryAfter ?? 0)}.`;
    case 'staleCode':
      return 'This sticker is out of date. Ask an admin for a new one.';
    case 'occupancyFull':
      return 'The space is full: wait until someone checks out.';
    case 'interlock':
      // The hub's words name the interlock by its label ("The interlock "Lid" is open: ...").
      return `${check.message}.`;
    case 'bridgeOffline':
      return `The ${noun} is offline: its controller does not answer.`;
    case 'noBridge':
      return `This ${noun} has no controller yet.`;
    case 'noRemoteSwitch':
      return `This ${noun} is used at its reader with your key card: its controller cannot be switched from here.`;
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
  if (!userAgent?.trim()) return 'A browser';
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  const known = browser ?? system;
  if (known) return known;
  const text = userAgent.trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
