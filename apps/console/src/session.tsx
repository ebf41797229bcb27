// The signed-in person: an API token kept in this tab's sessionStorage (never localStorage, never a URL) and the
// role the API grants it. Sign-in methods plug in here (API token now; SSO can add another way to get a session).
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { api, ApiError, configureAuth } from './api/client';

export type Role = 'admin' | 'auditor';

export interface Session {
  token: string;
  role: Role;
}

const STORAGE_KEY = 'hookwarden.console.session';

interface SessionContextValue {
  session: Session | null;
  /** Why the last session ended, shown on the sign-in page (e.g. the token was revoked). */
  endedBecause: string | null;
  signInWithToken: (token: string) => Promise<void>;
  signOut: (reason?: string) => void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

// Reads a session saved in this tab (sessionStorage survives a reload, not the tab).
function restore(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (typeof s.token === 'string' && (s.role === 'admin' || s.role === 'auditor'))
      return { token: s.token, role: s.role };
  } catch {
    // unreadable: signed out
  }
  return null;
}

// Asks the API which role a token has: admins may list tokens, auditors get 403, anything else is an error.
export async function whoAmI(token: string): Promise<Role> {
  configureAuth(token);
  const res = await api.GET('/v1/tokens', { params: { query: { limit: 1 } } });
  if (res.response.ok) return 'admin';
  if (res.response.status === 403) return 'auditor';
  const e = res.error as { error?: { code?: string; message?: string; requestId?: string } } | undefined;
  throw new ApiError(
    res.response.status,
    e?.error?.code ?? 'error',
    e?.error?.message ?? res.response.statusText,
    'GET',
    '/v1/tokens',
    null,
    e?.error?.requestId ?? null,
  );
}

export function SessionProvider({ children }: { children: ReactNode }) {
  // The restored token is set before the first render: pages' queries start in effects that run before ours.
  const [session, setSession] = useState<Session | null>(() => {
    const s = restore();
    configureAuth(s?.token ?? null);
    return s;
  });
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  const queryClient = useQueryClient();

  const signOut = useCallback(
    (reason?: string) => {
      sessionStorage.removeItem(STORAGE_KEY);
      configureAuth(null);
      queryClient.clear();
      setEndedBecause(reason ?? null);
      setSession(null);
    },
    [queryClient],
  );

  useEffect(() => {
    configureAuth(session?.token ?? null, () => signOut('The API no longer accepts this token (401): sign in again.'));
  }, [session, signOut]);

  const signInWithToken = useCallback(async (token: string) => {
    const trimmed = token.trim();
    try {
      const role = await whoAmI(trimmed);
      const s = { token: trimmed, role };
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
      setEndedBecause(null);
      setSession(s);
    } catch (err) {
      configureAuth(null);
      throw err;
    }
  }, []);

  const value = useMemo(
    () => ({ session, endedBecause, signInWithToken, signOut }),
    [session, endedBecause, signInWithToken, signOut],
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
