/**
 * The one module that talks to the hub: every call is a public /api/v1 operation (documented at
 * /api/v1/docs). The browser signs in with the session cookie; calls that change something carry
 * the session's CSRF token (the hub refuses them otherwise).
 */
import type {
  AccessCheck,
  BookingRecord,
  BrowserSession,
  InvoiceRecord,
  MemberKeyRecord,
  MemberPackageRecord,
  MemberTrainingRecord,
  ResourceLogRecord,
  ResourceRecord,
  SignInLinkRedeemed,
  SwitchOnResult,
  TrainingCourseRecord,
  UserMe,
} from '@makerspace/shared';

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
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  // A 401 of a call that began before a sign-in says nothing about the new session.
  const tokenAtStart = csrfToken;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The hub cannot be reached. Check your connection.');
  }
  const text = await res.text();
  const json = text ? safeJson(text) : null;
  if (!res.ok) {
    const signInCall = path.startsWith('/user/login') || path.startsWith('/user/sign-in-links');
    if (res.status === 401 && !signInCall && csrfToken === tokenAtStart) notifySignedOut();
    const retry = res.headers.get('retry-after');
    throw new ApiError(
      res.status,
      json?.message ?? `The hub answered ${res.status}`,
      json?.data ?? {},
      retry ? Number(retry) : null,
    );
  }
  const total = res.headers.get('x-total-count');
  return { body: json as T, total: total === null ? null : Number(total) };
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

  resources: () => call<ResourceRecord[]>('GET', `/resources${q({ limit: 1000, orderBy: 'name' })}`),
  accessCheck: (id: number, code?: string) =>
    call<AccessCheck>('GET', `/resources/${id}/access-check${q({ code })}`),
  switchOn: (id: number, code: string) =>
    call<SwitchOnResult>('POST', `/resources/${id}/switch-on`, { code }),
  switchOff: (id: number) => call<unknown>('POST', `/resources/${id}/bridge/switch-off`),

  bookings: (member: number, from: string) =>
    call<BookingRecord[]>('GET', `/bookings${q({ member, from, state: 'confirmed', limit: 100 })}`),
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
};
