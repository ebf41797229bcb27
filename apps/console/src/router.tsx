// A small history-API router for pages under /console/: the path picks the page, the query string holds filters.
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

export const BASE = '/console';

const listeners = new Set<() => void>();
// Notifies subscribers of a location change.
function emit(): void {
  for (const l of listeners) l();
}
window.addEventListener('popstate', emit);

// Subscribes to location changes (for useSyncExternalStore).
function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

const snapshot = (): string => window.location.pathname + window.location.search;

export interface Location {
  /** Path below /console, starting with `/`. */
  path: string;
  query: URLSearchParams;
}

// The current location, re-rendering on navigation.
export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  let path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname;
  if (path === '') path = '/';
  return { path, query: url.searchParams };
}

// Goes to a console path (`/policies/…?x=1`); `replace` keeps history clean for filter changes.
export function navigate(to: string, replace = false): void {
  const href = BASE + (to.startsWith('/') ? to : `/${to}`);
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  emit();
  if (!replace) window.scrollTo(0, 0);
}

// Matches a pattern like `/policies/:id` against a path; the parameters or null.
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    if (part.startsWith(':')) out[part.slice(1)] = decodeURIComponent(s[i]!);
    else if (part !== s[i]) return null;
  }
  return out;
}

// An in-app link: a real <a href> (open in new tab, keyboard and screen readers work), navigated without reload.
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={BASE + to} onClick={onClick} />;
}
