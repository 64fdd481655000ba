import { render, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { hubReachable, onReachability, probeHub, type UserMe } from './api';
import './app.css';
import { setLiveScope, useLive } from './live';
import { MEMBER_STATUS_FIELDS } from './live-fields';
import { browserLanguages, pickLanguage, setLanguage, t, useLanguage } from './i18n/i18n';
import { AccountPage } from './pages/account';
import { HomePage } from './pages/home';
import { JoinConfirmPage, JoinPage } from './pages/join';
import { KioskPage } from './pages/kiosk';
import { MachinePage } from './pages/machine';
import { SignInPage } from './pages/sign-in';
import { SignInLinkPage } from './pages/sign-in-link';
import { StickersPage } from './pages/stickers';
import { navigate, onLinkClick, useLocation } from './router';
import { isAdmin, loadAuth, signOut, useAuth } from './session';

type AdminModule = typeof import('./admin/admin');

/** The admin console is its own chunk: loaded on the first admin page, never for members' pages. */
function AdminPage({ path, me }: { path: string; me: UserMe }) {
  const [mod, setMod] = useState<AdminModule | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    import('./admin/admin').then(setMod, () => setFailed(true));
  }, []);
  if (failed) return <p role="alert">{t('app.adminLoadFailed')}</p>;
  if (!mod) return <p role="status">{t('common.loading')}</p>;
  return <mod.AdminPages path={path} me={me} />;
}

/** A plain member at /admin: the console is not even loaded for them. */
function AdminsOnly() {
  return (
    <main class="narrow">
      <h1>{t('app.adminsOnlyTitle')}</h1>
      <p role="alert">{t('app.adminsOnlyText')}</p>
      <p>
        <a href="/">{t('app.goToMyPage')}</a>
      </p>
    </main>
  );
}

/** Whether the hub answers (api.ts), asked again whenever the live channel drops. */
function useReachable(liveConnected: boolean, signedIn: boolean): boolean {
  const [reachable, setReachable] = useState(hubReachable());
  useEffect(() => onReachability(setReachable), []);
  useEffect(() => {
    if (signedIn && !liveConnected) {
      const t = setTimeout(() => void probeHub(), 1000);
      return () => clearTimeout(t);
    }
  }, [liveConnected, signedIn]);
  return reachable;
}

function App() {
  const location = useLocation();
  const auth = useAuth();
  const live = useLive();
  const reachable = useReachable(live.connected, auth.state === 'signedIn');
  const here = location.path + window.location.search;
  // The member's own language decides; before sign-in (or without one), the browser's.
  setLanguage(pickLanguage(auth.state === 'signedIn' ? auth.me.language : null, browserLanguages()));
  useLanguage();

  const machine = location.path.match(/^\/r\/(\d+)$/);
  useEffect(() => {
    void loadAuth();
  }, []);
  // A machine page follows its own resource only; the other pages follow every one. The admin
  // pages show every field of a status; the members' pages, what they show.
  const admin = location.path === '/admin' || location.path.startsWith('/admin/');
  useEffect(
    () => setLiveScope(machine ? [Number(machine[1])] : null, admin ? null : MEMBER_STATUS_FIELDS),
    [machine?.[1], admin],
  );
  // Signed out (or the sign-in ended elsewhere): to the sign-in page, keeping where we were.
  useEffect(() => {
    const open =
      location.path === '/sign-in' || location.path === '/sign-in/link' || location.path.startsWith('/join');
    if (auth.state === 'signedOut' && !open) {
      navigate(`/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
    }
  }, [auth.state, location.path]);

  if (location.path === '/sign-in/link') {
    return <SignInLinkPage token={location.hash.get('token')} next={location.hash.get('next')} />;
  }
  if (location.path === '/sign-in') return <SignInPage next={location.query.get('next') ?? '/'} />;
  // Strangers join without signing in (when the space turned sign-up on).
  if (location.path === '/join') return <JoinPage space={Number(location.query.get('space')) || null} />;
  if (location.path === '/join/confirm') return <JoinConfirmPage token={location.hash.get('token')} />;
  if (auth.state !== 'signedIn') {
    return (
      <main>
        <p role="status">{t('common.loading')}</p>
      </main>
    );
  }

  let page: JSX.Element;
  if (machine) page = <MachinePage id={Number(machine[1])} code={location.query.get('c')} />;
  else if (location.path === '/account') page = <AccountPage me={auth.me} />;
  else if (location.path === '/kiosk') page = <KioskPage me={auth.me} />;
  else if (admin) page = isAdmin(auth.me) ? <AdminPage path={location.path} me={auth.me} /> : <AdminsOnly />;
  else if (location.path === '/stickers') {
    const ids = (location.query.get('ids') ?? '').split(',').filter(Boolean).map(Number);
    page = <StickersPage ids={ids} />;
  } else page = <HomePage me={auth.me} />;

  return (
    <>
      <header class="top no-print">
        <a href="/" class="brand" aria-current={location.path === '/' ? 'page' : undefined}>
          {t('app.brand')}
        </a>
        <nav aria-label={t('app.mainNav')}>
          <a href="/account" aria-current={location.path === '/account' ? 'page' : undefined}>
            {t('app.account')}
          </a>
          {isAdmin(auth.me) && (
            <a href="/admin" aria-current={location.path.startsWith('/admin') ? 'page' : undefined}>
              {t('app.admin')}
            </a>
          )}
          <button type="button" class="link" onClick={() => void signOut()}>
            {t('app.signOut')}
          </button>
        </nav>
        <span
          class={`dot ${live.connected ? 'on' : 'off'}`}
          role="img"
          aria-label={live.connected ? t('app.liveOn') : t('app.liveOff')}
        />
      </header>
      {!reachable && (
        <p role="alert" class="unreachable no-print">
          {t('app.unreachable')}
        </p>
      )}
      {/* A disabled fieldset disables every button and field of the page at once. */}
      <fieldset class="page" disabled={!reachable}>
        {page}
      </fieldset>
    </>
  );
}

const root = document.getElementById('app')!;
root.addEventListener('click', onLinkClick);
render(<App />, root);
