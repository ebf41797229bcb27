// Sign-in: single sign-on through the identity provider when the API has one (GET /v1/auth/config), and an API
// token (kept in this tab's session only) for everyone else.
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorBox } from './components/ui';
import { authConfigQuery, useSession } from './session';

// The SSO start URL when single sign-on is on (null when off or the API cannot say), returning to the current page.
function useSsoLogin(): string | null {
  const config = useQuery(authConfigQuery).data;
  const loginUrl = config?.sso.enabled ? config.sso.loginUrl : null;
  if (!loginUrl || !loginUrl.startsWith('/')) return null;
  const here = window.location.pathname + window.location.search;
  const returnTo = here.startsWith('/console') ? here : '/console/';
  return `${loginUrl}?returnTo=${encodeURIComponent(returnTo)}`;
}

export function SignIn() {
  const { signInWithToken, endedBecause } = useSession();
  const ssoLogin = useSsoLogin();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signInWithToken(token);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="sign-in" id="main">
      <div className="sign-in-card">
        <div className="brand brand-large">
          <img src="/console/favicon.svg" alt="" width={40} height={40} />
          <span>Hookwarden</span>
        </div>
        <h1>Sign in to the console</h1>
        <p className="subtitle">Govern the hooks of AI coding agents across your fleet.</p>
        {endedBecause ? (
          <p className="notice" role="status">
            {endedBecause}
          </p>
        ) : null}
        {ssoLogin ? (
          <div className="sign-in-sso">
            <a className="btn-primary btn-block" href={ssoLogin} data-testid="sso-login">
              Sign in with single sign-on
            </a>
            <p className="hint">Your identity provider decides your role from your groups.</p>
            <div className="sign-in-or">or use an API token</div>
          </div>
        ) : null}
        <form onSubmit={(e) => void submit(e)}>
          <label htmlFor="token">API token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="hwt_…"
            autoFocus={!ssoLogin}
          />
          <p className="hint">
            An admin or auditor token (<code>npm run tokens -- create --name NAME --role auditor</code>). It stays in
            this browser tab only and is sent as <code>Authorization: Bearer</code>.
          </p>
          <ErrorBox error={error} title="Sign-in failed" />
          <button type="submit" className="btn-primary btn-block" disabled={busy || token.trim() === ''}>
            {busy ? 'Signing in…' : 'Sign in with token'}
          </button>
        </form>
      </div>
    </main>
  );
}
