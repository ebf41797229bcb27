// The signed-in person, one of two kinds: an API token kept in this tab's sessionStorage (never localStorage, never a
// URL), or an SSO session whose secret is an HttpOnly cookie the page cannot read (restored by asking GET /v1/me; its
// writes carry the session's CSRF token). The role always comes from the API.
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { api, ApiError, apiErrorOf, configureAuth, type Credentials, type Schemas } from './api/client';
import { queryKeys } from './query-keys';

export type Role = 'admin' | 'auditor';

export type Session =
  | { kind: 'token'; token: string; role: Role; name: string }
  | { kind: 'sso'; role: Role; name: string; email: string | null; csrfToken: string; expiresAt: string };

const STORAGE_KEY = 'hookwarden.console.session';

interface SessionContextValue {
  session: Session | null;
  /** True while the console asks the API whether an SSO session cookie is present (first render only). */
  checking: boolean;
  /** Why the last session ended, shown on the sign-in page (e.g. the token was revoked). */
  endedBecause: string | null;
  signInWithToken: (token: string) => Promise<void>;
  /** Ends the session; SSO sessions end at the API too (and at the IdP when it supports RP-initiated logout). */
  signOut: (reason?: string) => void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

// Reads a token session saved in this tab (sessionStorage survives a reload, not the tab).
function restore(): Extract<Session, { kind: 'token' }> | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Extract<Session, { kind: 'token' }>>;
    if (typeof s.token === 'string' && (s.role === 'admin' || s.role === 'auditor'))
      return { kind: 'token', token: s.token, role: s.role, name: typeof s.name === 'string' ? s.name : 'API token' };
  } catch {
    // unreadable: signed out
  }
  return null;
}

// The credentials a session sends.
function credentialsOf(s: Session | null): Credentials | null {
  if (!s) return null;
  return s.kind === 'token' ? { token: s.token } : { csrfToken: s.csrfToken };
}

// Asks the API who the given credentials are (GET /v1/me); null for 401 (no session), an ApiError otherwise.
async function me(credentials: Credentials | null): Promise<Schemas['MeDto'] | null> {
  configureAuth(credentials);
  try {
    return await api.GET('/v1/me');
  } catch (err) {
    const e = apiErrorOf(err, 'GET');
    if (e.status === 401 && !credentials) return null;
    throw e.status === 0 ? new ApiError(0, e.code, e.message, 'GET', '/v1/me', null, null) : e;
  }
}

// Checks the console may be used with this identity: people with the metrics role only have no console.
function consoleRole(role: string): Role {
  if (role === 'admin' || role === 'auditor') return role;
  throw new ApiError(403, 'forbidden', `The ${role} role cannot use the console`, 'GET', '/v1/me', null, null);
}

// Asks the API which role a token has (GET /v1/me).
export async function whoAmI(token: string): Promise<{ role: Role; name: string }> {
  const m = (await me({ token }))!;
  return { role: consoleRole(m.role), name: m.name };
}

/** How people sign in (GET /v1/auth/config), fetched once and shared by the session check and the sign-in page. */
export const authConfigQuery = {
  queryKey: queryKeys.authConfig(),
  queryFn: async (): Promise<Schemas['AuthConfigDto'] | null> =>
    (await api.GET('/v1/auth/config').catch(() => null)) ?? null,
  staleTime: Number.POSITIVE_INFINITY,
};

// The SSO session of this browser's cookie, or null when there is none (asked only when the browser holds a session
// cookie, so a signed-out console makes no request that answers 401).
async function ssoSession(queryClient: QueryClient): Promise<Session | null> {
  configureAuth(null);
  const config = await queryClient.fetchQuery(authConfigQuery);
  if (!config?.sessionCookie) return null;
  const m = await me(null);
  if (!m || m.kind !== 'session' || !m.session) return null;
  return {
    kind: 'sso',
    role: consoleRole(m.role),
    name: m.person?.name ?? m.person?.email ?? m.name,
    email: m.person?.email ?? null,
    csrfToken: m.session.csrfToken,
    expiresAt: m.session.expiresAt,
  };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  // The restored token is set before the first render: pages' queries start in effects that run before ours.
  const [session, setSession] = useState<Session | null>(() => {
    const s = restore();
    configureAuth(credentialsOf(s));
    return s;
  });
  const [checking, setChecking] = useState(() => session === null);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  const queryClient = useQueryClient();

  // Forgets the session in this tab.
  const end = useCallback(
    (reason?: string) => {
      sessionStorage.removeItem(STORAGE_KEY);
      configureAuth(null);
      queryClient.clear();
      setEndedBecause(reason ?? null);
      setSession(null);
    },
    [queryClient],
  );

  const signOut = useCallback(
    (reason?: string) => {
      if (session?.kind !== 'sso') {
        end(reason);
        return;
      }
      // The API ends the session and clears the cookie (the CSRF header goes with the write); then the IdP's own
      // session, when it offers that.
      void api
        .POST('/v1/auth/logout')
        .then((res) => {
          const next: unknown = res.endSessionUrl;
          end(reason);
          if (typeof next === 'string' && /^https?:\/\//.test(next)) window.location.assign(next);
        })
        .catch(() => end(reason));
    },
    [session, end],
  );

  // On first load without a token: an SSO session cookie (after the IdP's redirect back, or a reload) signs in.
  useEffect(() => {
    if (!checking) return;
    let live = true;
    ssoSession(queryClient)
      .then((s) => {
        if (!live) return;
        if (s) {
          configureAuth(credentialsOf(s));
          setSession(s);
        }
      })
      .catch((err: unknown) => {
        if (live) setEndedBecause(err instanceof Error ? err.message : String(err));
      })
      .finally(() => {
        if (live) setChecking(false);
      });
    return () => {
      live = false;
    };
  }, [checking, queryClient]);

  useEffect(() => {
    if (!session) return;
    const why =
      session.kind === 'token'
        ? 'The API no longer accepts this token (401): sign in again.'
        : 'Your single sign-on session has ended (expired, revoked or signed out elsewhere): sign in again.';
    configureAuth(credentialsOf(session), () => end(why));
  }, [session, end]);

  const signInWithToken = useCallback(async (token: string) => {
    const trimmed = token.trim();
    try {
      const { role, name } = await whoAmI(trimmed);
      const s: Session = { kind: 'token', token: trimmed, role, name };
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
      setEndedBecause(null);
      setSession(s);
    } catch (err) {
      configureAuth(null);
      throw err;
    }
  }, []);

  const value = useMemo(
    () => ({ session, checking, endedBecause, signInWithToken, signOut }),
    [session, checking, endedBecause, signInWithToken, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

// The session context (inside SessionProvider).
export function useSession(): SessionContextValue {
  const v = useContext(SessionContext);
  if (!v) throw new Error('useSession outside SessionProvider');
  return v;
}

// True when the signed-in person may change things (admins); auditors get read-only pages without write controls.
export function useCanWrite(): boolean {
  return useSession().session?.role === 'admin';
}
