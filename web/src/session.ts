import { useEffect, useState } from 'preact/hooks';
import { api, onSignedOut, type SignInResult, setCsrfToken, type UserMe } from './api';
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

/** Counts sign-ins: an answer to an older question must not undo a newer sign-in. */
let generation = 0;

export async function loadAuth(): Promise<void> {
  const asked = generation;
  try {
    const [me, current] = await Promise.all([api.me(), api.currentSession()]);
    if (asked !== generation) return;
    setCsrfToken(current.csrfToken);
    set({ state: 'signedIn', me });
  } catch {
    if (asked !== generation) return;
    // Signed out, or the hub is unreachable: either way the sign-in page is where to go.
    set({ state: 'signedOut' });
  }
}

export function signedIn(result: SignInResult): void {
  generation++;
  setCsrfToken(result.csrfToken);
  set({ state: 'signedIn', me: result.member });
}

/** The signed-in member's record changed (their language): every page sees the new one. */
export function setMe(me: UserMe): void {
  if (auth.state === 'signedIn') set({ state: 'signedIn', me });
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
  return me.privileges === 'admin' || me.privileges === 'owner';
}
