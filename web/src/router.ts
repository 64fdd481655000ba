import { useEffect, useState } from 'preact/hooks';

/** The browser's path and query; pages are plain functions of them. */
export interface Location {
  path: string;
  query: URLSearchParams;
  hash: URLSearchParams;
}

const listeners = new Set<() => void>();

function read(): Location {
  return {
    path: window.location.pathname,
    query: new URLSearchParams(window.location.search),
    hash: new URLSearchParams(window.location.hash.slice(1)),
  };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/** Internal links without a page load. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor || anchor.target || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || url.pathname.startsWith('/api/')) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
}

/** A relative path to return to after sign-in; anything else becomes `/`. */
export function safeNext(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  return next;
}
