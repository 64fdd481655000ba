/**
 * The one module that talks to the hub: every call is a public /api/v1 operation (documented at
 * /api/v1/docs). The browser signs in with the session cookie; calls that change something carry
 * the session's CSRF token (the hub refuses them otherwise).
 */
import type {
  AccessCheck,
  BookingRecord,
  BrowserSession,
  HubInfo,
  InvoiceRecord,
  MemberKeyRecord,
  MemberPackageRecord,
  MemberTrainingRecord,
  NotificationOutbox,
  NotificationSettingsRecord,
  ResourceAvailability,
  ResourceLogRecord,
  ResourceRecord,
  SignInLinkRedeemed,
  SwitchOnResult,
  TrainingCourseRecord,
  UserMe,
  SpaceRecord,
} from '@makerspace/shared';
import { t, tOr } from './i18n/i18n';

// The record types pages use, from one place.
export type * from '@makerspace/shared';
/** What sign-in answers (the link's purpose and return path only for e-mailed links). */
export type SignInResult = Omit<SignInLinkRedeemed, 'purpose' | 'next'> &
  Partial<Pick<SignInLinkRedeemed, 'purpose' | 'next'>>;

export interface MemberCredit {
  id: number;
  scope: string;
  amount: string;
  remaining: string;
  fromDate: string;
  untilDate: string | null;
}

/** The hub's error body `{statusCode, error, message, data?}` as an exception. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: Record<string, any> = {},
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

const base = '/api/v1';
let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Listeners told when a call answers 401 (the sign-in ended). */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The sign-in ended (a 401, or the live channel said so): every page goes to sign-in. */
export function notifySignedOut(): void {
  for (const listener of signedOutListeners) listener();
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await callWithTotal<T>(method, path, body)).body;
}

/** A call whose answer is one page of a list: the body and `X-Total-Count`. */
export async function callWithTotal<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ body: T; total: number | null }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // A file (a photo) goes as its bytes with its own type; everything else as JSON.
  const file = typeof Blob !== 'undefined' && body instanceof Blob ? body : null;
  if (body !== undefined)
    headers['content-type'] = file ? file.type || 'application/octet-stream' : 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  // A 401 of a call that began before a sign-in says nothing about the new session.
  const tokenAtStart = csrfToken;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: file ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
  } catch {
    setReachable(false);
    throw new ApiError(0, t('common.unreachableCheck'));
  }
  const text = await res.text().catch(() => '');
  const json = text ? safeJson(text) : null;
  // A proxy in front of a stopped hub answers 502 or 504 without the hub's error body.
  if ((res.status === 502 || res.status === 504) && json?.statusCode === undefined) {
    setReachable(false);
    throw new ApiError(0, t('common.unreachableCheck'));
  }
  setReachable(true);
  if (!res.ok) {
    const signInCall = path.startsWith('/user/login') || path.startsWith('/user/sign-in-links');
    if (res.status === 401 && !signInCall && csrfToken === tokenAtStart) notifySignedOut();
    const retryHeader = res.headers.get('retry-after');
    const retry = retryHeader && /^\d+$/.test(retryHeader) ? Number(retryHeader) : null;
    throw new ApiError(res.status, errorText(res.status, json, retry), json?.data ?? {}, retry);
  }
  const total = res.headers.get('x-total-count');
  return { body: json as T, total: total === null ? null : Number(total) };
}

/**
 * The words of an error body for people: each field problem of bad input as "First name: at
 * most 100 characters" (not the validator's "body.firstName: Too big..."), and a throttled
 * call's wait once, from Retry-After ("Try again in 15 minutes.").
 */
export function errorText(status: number, json: any, retryAfter: number | null): string {
  const validation = json?.data?.validation;
  if (Array.isArray(validation) && validation.length > 0) {
    const lines: string[] = [];
    for (const v of validation as { path?: string; message?: string }[]) {
      const label = fieldLabel(v.path ?? '');
      const line = `${label ? `${label}: ` : ''}${problemWords(v.message ?? t('common.invalid.notValid'))}`;
      if (!lines.includes(line)) lines.push(line);
    }
    return `${lines.join('. ')}.`;
  }
  const message: string = json?.message ?? t('common.hubAnswered', { status });
  if (status === 429) {
    const plain = message.replace(/[;,.]?\s*try again in [^.;]*\.?$/i, '').trim();
    const wait = retryAfter
      ? t('common.tryAgainIn', { wait: waitWords(retryAfter) })
      : t('common.tryAgainLater');
    return `${plain.endsWith('.') ? plain : `${plain}.`}${wait}`;
  }
  return message;
}

/**
 * "firstName" -> "First name" ("Vorname"); "lines.0.amount" -> "Amount"; "emailAddress" ->
 * "E-mail address". The fields of the members' forms are in the catalog (`common.field`); any
 * other is its name in English words.
 */
function fieldLabel(path: string): string {
  const name = path
    .split('.')
    .filter((p) => p && !/^\d+$/.test(p))
    .pop();
  if (!name) return '';
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return tOr(`common.field.${name}`, words.charAt(0).toUpperCase() + words.slice(1));
}

/** A validator's problem and its plain words: "Too big: expected string to have <=100 characters" -> "at most 100 characters". */
const problems: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/expected string to have <=(\d+) characters?/, (m) => t('common.invalid.atMostCharacters', { n: m[1] })],
  [
    /expected string to have >=(\d+) characters?/,
    (m) => (m[1] === '1' ? t('common.invalid.required') : t('common.invalid.atLeastCharacters', { n: m[1] })),
  ],
  [/expected (?:array|set) to have <=(\d+) items?/, (m) => t('common.invalid.atMostEntries', { n: m[1] })],
  [/expected (?:array|set) to have >=(\d+) items?/, (m) => t('common.invalid.atLeastEntries', { n: m[1] })],
  [/expected (?:number|int|bigint) to be <=(\S+)/, (m) => t('common.invalid.atMost', { n: m[1] })],
  [/expected (?:number|int|bigint) to be >=(\S+)/, (m) => t('common.invalid.atLeast', { n: m[1] })],
  [/expected (?:number|int|bigint) to be <(\S+)/, (m) => t('common.invalid.lessThan', { n: m[1] })],
  [/expected (?:number|int|bigint) to be >(\S+)/, (m) => t('common.invalid.moreThan', { n: m[1] })],
  [/received undefined|^Required$/, () => t('common.invalid.required')],
  [/Invalid email/i, () => t('common.invalid.email')],
  [
    /Invalid option: expected one of (.*)$/,
    (m) => t('common.invalid.oneOf', { values: m[1].replace(/"/g, '') }),
  ],
  [/Unrecognized keys?: (.*)$/, (m) => t('common.invalid.unknownField', { names: m[1].replace(/"/g, '') })],
  [
    /^Invalid input: expected (\w+)/,
    (m) =>
      m[1] === 'string' ? t('common.invalid.expectedText') : t('common.invalid.expected', { type: m[1] }),
  ],
];

function problemWords(raw: string): string {
  // The hub's own texts may name another field by its place ("must not lie before query.from").
  const message = raw.replace(/\b(?:body|query|querystring|params)\.([A-Za-z0-9_.]+)/g, (_, path: string) =>
    fieldLabel(path).toLowerCase(),
  );
  for (const [pattern, words] of problems) {
    const m = message.match(pattern);
    if (m) return words(m);
  }
  return message;
}

/** 900 -> "15 minutes", 40 -> "40 seconds", 7200 -> "2 hours". */
export function waitWords(seconds: number): string {
  if (seconds < 90) return t('common.wait.second', { count: Math.max(1, Math.ceil(seconds)) });
  if (seconds < 90 * 60) return t('common.wait.minute', { count: Math.ceil(seconds / 60) });
  return t('common.wait.hour', { count: Math.ceil(seconds / 3600) });
}

/**
 * Whether the hub answers: false after a call could not reach it, true again after any answer.
 * While false, the hub is asked every few seconds, so pages clear their notice once it is back.
 */
let reachable = true;
let probing: ReturnType<typeof setTimeout> | null = null;
const reachabilityListeners = new Set<(reachable: boolean) => void>();

export function hubReachable(): boolean {
  return reachable;
}

export function onReachability(listener: (reachable: boolean) => void): () => void {
  reachabilityListeners.add(listener);
  return () => reachabilityListeners.delete(listener);
}

function setReachable(value: boolean): void {
  if (!value && !probing) probing = setTimeout(probeHub, 2000);
  if (value === reachable) return;
  reachable = value;
  for (const listener of reachabilityListeners) listener(value);
}

/** Asks the hub whether it answers (the live channel dropping is a reason to ask). */
export async function probeHub(): Promise<void> {
  if (probing) clearTimeout(probing);
  probing = null;
  try {
    const res = await fetch(`${base}/hub-info`, { headers: { accept: 'application/json' } });
    setReachable(res.status !== 502 && res.status !== 504);
  } catch {
    setReachable(false);
  }
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const q = (params: Record<string, string | number | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
};

export const api = {
  hubInfo: () => call<HubInfo>('GET', '/hub-info'),
  me: () => call<UserMe>('GET', '/user/me'),
  currentSession: () => call<{ session: BrowserSession; csrfToken: string }>('GET', '/user/sessions/current'),
  login: (emailAddress: string, password: string) =>
    call<SignInResult>('POST', '/user/login', { emailAddress, password }),
  logout: () => call<void>('POST', '/user/logout'),
  requestLink: (emailAddress: string, purpose: 'signIn' | 'passwordReset', next?: string) =>
    call<Record<string, never>>('POST', '/user/sign-in-links', { emailAddress, purpose, next }),
  redeemLink: (token: string) => call<SignInResult>('POST', '/user/sign-in-links/redeem', { token }),
  setPassword: (password: string, currentPassword?: string) =>
    call<void>('PUT', '/user/password', { password, currentPassword }),
  sessions: () => call<BrowserSession[]>('GET', '/user/sessions'),
  endSession: (id: number) => call<void>('DELETE', `/user/sessions/${id}`),
  endAllSessions: () => call<void>('DELETE', '/user/sessions'),
  /** The member's own language (null: the browser's); members may change their own record. */
  setLanguage: (me: UserMe, language: string | null) =>
    call<unknown>('PUT', `/members/${me.id}`, { language, lockVersion: me.lockVersion }),

  resources: () => call<ResourceRecord[]>('GET', `/resources${q({ limit: 1000, orderBy: 'name' })}`),
  accessCheck: (id: number, code?: string) =>
    call<AccessCheck>('GET', `/resources/${id}/access-check${q({ code })}`),
  switchOn: (id: number, code: string) =>
    call<SwitchOnResult>('POST', `/resources/${id}/switch-on`, { code }),
  switchOff: (id: number) => call<unknown>('POST', `/resources/${id}/bridge/switch-off`),

  bookings: (member: number, from: string) =>
    call<BookingRecord[]>('GET', `/bookings${q({ member, from, state: 'confirmed', limit: 100 })}`),
  availability: (resource: number, from: string, until: string) =>
    call<ResourceAvailability>('GET', `/resources/${resource}/availability${q({ from, until })}`),
  createBooking: (resource: number, fromDateTime: string, untilDateTime: string) =>
    call<BookingRecord>('POST', '/bookings', { resource, fromDateTime, untilDateTime }),
  cancelBooking: (booking: BookingRecord) =>
    call<BookingRecord>('PUT', `/bookings/${booking.id}`, {
      state: 'cancelled',
      lockVersion: booking.lockVersion,
    }),
  myLogs: (member: number) =>
    call<ResourceLogRecord[]>('GET', `/resource-logs${q({ member, limit: 20, order: 'desc' })}`),
  key: (member: number) => call<MemberKeyRecord>('GET', `/members/${member}/key`),
  reportKeyLost: (member: number) => call<MemberKeyRecord>('POST', `/members/${member}/key/lost`),
  packages: (member: number) =>
    call<(MemberPackageRecord & { _embedded?: { package?: { name: string } | null } })[]>(
      'GET',
      `/members/${member}/packages${q({ embed: 'package' })}`,
    ),
  credits: (member: number) =>
    call<MemberCredit[]>('GET', `/members/${member}/credits${q({ current: 'true' })}`),
  invoices: (member: number) =>
    call<InvoiceRecord[]>('GET', `/invoices${q({ member, order: 'desc', limit: 20 })}`),
  trainings: (member: number) =>
    call<MemberTrainingRecord[]>('GET', `/members/${member}/trainings${q({ limit: 100 })}`),
  courses: () => call<TrainingCourseRecord[]>('GET', `/training-courses${q({ limit: 1000 })}`),
  space: (id: number) => call<SpaceRecord>('GET', `/spaces/${id}`),
  notificationSettings: (member: number) =>
    call<NotificationSettingsRecord>('GET', `/members/${member}/notification-settings`),
  setNotificationSettings: (member: number, change: Partial<Record<string, boolean>>) =>
    call<NotificationSettingsRecord>('PUT', `/members/${member}/notification-settings`, change),
  notificationOutbox: (state?: 'queued' | 'sent' | 'failed') =>
    call<NotificationOutbox>('GET', `/notification-outbox${q({ state, limit: 50 })}`),
  retryNotification: (id: number) => call<{ retry: string }>('POST', `/notification-outbox/${id}/retry`),

  // Paying online through Stripe: only offered when `onlinePayments(member).enabled`.
  onlinePayments: (member: number) => call<OnlinePayments>('GET', `/members/${member}/online-payments`),
  balance: (member: number) => call<MemberBalance>('GET', `/members/${member}/balance-items`),
  payInvoice: (invoice: number) => call<CheckoutLink>('POST', `/invoices/${invoice}/checkout`),
  topUp: (member: number, amount: string) =>
    call<CheckoutLink>('POST', `/members/${member}/balance/checkout`, { amount }),
  savePaymentMethod: (member: number) =>
    call<CheckoutLink>('POST', `/members/${member}/payment-method/checkout`),
  stripePayments: (invoice: number) => call<StripePayment[]>('GET', `/invoices/${invoice}/stripe-payments`),
  removePaymentMethod: (member: number) => call<void>('DELETE', `/members/${member}/payment-method/stripe`),
  /** The invoice as a PDF (a link to follow, not a call). */
  invoicePdfUrl: (invoice: number) => `/api/v1/invoices/${invoice}/pdf`,
};

/** A member's prepaid balance (GET /members/{id}/balance-items; the items are not used here). */
export interface MemberBalance {
  member: number;
  balance: string;
}

/** A payment of an invoice through Stripe (a Checkout session or a charge of the saved method). */
export interface StripePayment {
  id: number;
  kind: 'checkout' | 'setup' | 'charge';
  attempt: number;
  state: 'started' | 'open' | 'processing' | 'succeeded' | 'failed' | 'expired';
  amount: string;
  currency: string;
  failureCode: string | null;
  failureMessage: string | null;
  retryAfter: string | null;
}

/** Stripe Checkout's page to send the member to. */
export interface CheckoutLink {
  id: string;
  url: string;
}

/** Whether the member's space takes payments through Stripe, and the method saved there. */
export interface OnlinePayments {
  member: number;
  enabled: boolean;
  publishableKey: string | null;
  currency: string;
  paymentMethod: {
    type: 'card' | 'sepa';
    brand: string | null;
    last4: string | null;
    mandateReference: string | null;
    updatedAt: string;
  } | null;
}
