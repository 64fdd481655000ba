import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, onSignedOut, type SignInResult, setCsrfToken, type UserMe } from './api';
import { startLive, stopLive } from './live';

/** Who is signed in, for every page: read once at start, changed by sign-in and sign-out. */
export type Auth = { state: 'loading' } | { state: 'signedOut' } | { state: 'signedIn'; me: UserMe };

let auth: Auth = { state: 'loading' };
const listeners = new Set<() => void>();

function set(next: Auth): void {
  auth = next;
  if (next.state === 'signedIn') startLive();
  else stopLive();
  for (const listener of listeners) listener();
}

onSignedOut(() => {
  setCsrfToken(null);
  set({ state: 'signedOut' });
});

export async function loadAuth(): Promise<void> {
  try {
    const [me, current] = await Promise.all([api.me(), api.currentSession()]);
    setCsrfToken(current.csrfToken);
    set({ state: 'signedIn', me });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) set({ state: 'signedOut' });
    else set({ state: 'signedOut' });
  }
}

export function signedIn(result: SignInResult): void {
  setCsrfToken(result.csrfToken);
  set({ state: 'signedIn', me: result.member });
}

export async function signOut(): Promise<void> {
  try {
    await api.logout();
  } finally {
    setCsrfToken(null);
    set({ state: 'signedOut' });
  }
}

export function useAuth(): Auth {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return auth;
}

export function isAdmin(me: UserMe): boolean {
  const privileges = (me as any)._embedded?.privileges?.privileges ?? (me as any).privileges;
  return privileges === 'admin' || privileges === 'owner';
}
