// Personal CLI tokens of the signed-in person (SSO sessions): mint a short-lived token with your role for
// `hookwarden login`, see yours, revoke them. The secret is shown once.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas } from '../api/client';
import { ConfirmRow } from '../components/confirm-row';
import { QueryList } from '../components/list';
import { Badge, Card, CopyButton, ErrorBox, PageHeader, When } from '../components/ui';
import { useAction } from '../components/use-action';
import { useSession } from '../session';
import { queryKeys } from '../query-keys';

type Created = Schemas['CreatedPersonalTokenDto'];
type Token = Schemas['PersonalTokenViewDto'];

// Whether a token still works.
function tokenState(t: Token): 'active' | 'expired' | 'revoked' {
  if (t.revokedAt) return 'revoked';
  return t.expiresAt !== null && new Date(t.expiresAt).getTime() < Date.now() ? 'expired' : 'active';
}

/** Lifetimes offered, in seconds (the server caps them at its maximum). */
const LIFETIMES: Array<[number, string]> = [
  [3600, '1 hour'],
  [8 * 3600, '8 hours'],
  [24 * 3600, '1 day'],
  [7 * 24 * 3600, '7 days'],
];

// The command that stores a token as a CLI context (the token is piped in, so it stays out of the shell history).
export function loginCommand(origin: string): string {
  return `hookwarden login --url ${origin} --token -`;
}

// Mints a personal token.
function NewToken({ onCreated }: { onCreated: (t: Created) => void }) {
  const [name, setName] = useState('');
  const [ttlSec, setTtlSec] = useState(8 * 3600);
  const { run, busy, error } = useAction(async () => {
    onCreated(await api.POST('/v1/me/tokens', { body: { name: name.trim(), ttlSec } }));
    setName('');
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };
  return (
    <form onSubmit={submit} className="form-grid" aria-label="Create a CLI token">
      <label htmlFor="token-name">What it is for</label>
      <input
        id="token-name"
        required
        maxLength={100}
        value={name}
        placeholder="laptop CLI"
        onChange={(e) => setName(e.target.value)}
      />
      <label htmlFor="token-ttl">Lifetime</label>
      <select id="token-ttl" value={ttlSec} onChange={(e) => setTtlSec(Number(e.target.value))}>
        {LIFETIMES.map(([sec, label]) => (
          <option key={sec} value={sec}>
            {label}
          </option>
        ))}
      </select>
      <div className="form-span">
        <ErrorBox error={error} />
        <button type="submit" className="btn-primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

export default function CliTokens() {
  const { session } = useSession();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<Created | null>(null);
  const sso = session?.kind === 'sso';
  const q = useQuery({
    queryKey: queryKeys.me.tokens(),
    queryFn: () => api.GET('/v1/me/tokens', { params: { query: { limit: 100 } } }),
    enabled: sso,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.me.tokens() });
  if (!sso) {
    return (
      <>
        <PageHeader title="CLI tokens" />
        <Card title="Signed in with an API token">
          <p>
            Personal CLI tokens are minted from a single sign-on session. You are signed in with an API token: use it
            with <code>hookwarden login --token -</code> directly.
          </p>
        </Card>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="CLI tokens"
        subtitle="Short-lived tokens with your role for the hookwarden CLI. They end when they expire, when you revoke them, when the session that minted them is revoked, or when you lose the role."
      />
      <div className="grid-2">
        {created ? (
          <Card title="New token" className="span-2">
            <div className="once" role="status" data-testid="new-token">
              <strong>Token created — it is shown only this once.</strong>
              <div className="copy-line">
                <code data-testid="token-secret">{created.token}</code>
                <CopyButton text={created.token} label="Copy token" />
              </div>
              <p>Store it as a CLI context (paste the token when asked, or pipe it in):</p>
              <div className="copy-line">
                <code data-testid="login-command">{loginCommand(window.location.origin)}</code>
                <CopyButton text={loginCommand(window.location.origin)} label="Copy command" />
              </div>
              <button type="button" className="btn-ghost" onClick={() => setCreated(null)}>
                I have stored it
              </button>
            </div>
          </Card>
        ) : null}
        <Card title="Create a token">
          <NewToken
            onCreated={(t) => {
              setCreated(t);
              void refresh();
            }}
          />
        </Card>
        <Card title="Your tokens" className="span-2">
          <QueryList
            query={q}
            empty="You have no CLI token."
            rowKey={(t) => t.id}
            columns={[
              { header: 'Name', cell: (t) => t.name },
              { header: 'Prefix', cell: (t) => <code>{t.prefix}…</code> },
              { header: 'Role', cell: (t) => t.role },
              { header: 'Expires', cell: (t) => <When at={t.expiresAt} /> },
              {
                header: 'State',
                cell: (t) => <Badge value={tokenState(t)} tone={tokenState(t) === 'active' ? 'ok' : 'muted'} />,
              },
              {
                header: 'Actions',
                cell: (t) =>
                  tokenState(t) === 'active' ? (
                    <ConfirmRow
                      label="Revoke"
                      danger
                      title="Revoke this token?"
                      body="The CLI contexts that store it stop working at once."
                      onConfirm={async () => {
                        await api.DELETE('/v1/me/tokens/{id}', { params: { path: { id: t.id } } });
                        await refresh();
                      }}
                    />
                  ) : null,
              },
            ]}
          />
        </Card>
      </div>
    </>
  );
}
