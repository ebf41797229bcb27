// Sign-in: an API token (kept in this tab's session only). Other methods (SSO) add a button to SIGN_IN_METHODS.
import { type FormEvent, useState } from 'react';
import { ErrorBox } from './components/ui';
import { useSession } from './session';

export function SignIn() {
  const { signInWithToken, endedBecause } = useSession();
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
            autoFocus
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
