// The app shell: sign-in when signed out; otherwise navigation, the signed-in role and the current page.
import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { ErrorBoundary } from './components/error-boundary';
import { GlobalSearch } from './components/search';
import { Loading } from './components/ui';
import { Link, match, useLocation } from './router';
import { useSession } from './session';
import { SignIn } from './sign-in';

type Page = LazyExoticComponent<ComponentType<{ params: Record<string, string> }>>;

const Overview = lazy(() => import('./pages/overview'));
const Groups = lazy(() => import('./pages/groups'));
const Group = lazy(() => import('./pages/group'));
const Endpoint = lazy(() => import('./pages/endpoint'));
const Endpoints = lazy(() => import('./pages/endpoints'));
const Policies = lazy(() => import('./pages/policies'));
const Policy = lazy(() => import('./pages/policy'));
const NewVersion = lazy(() => import('./pages/new-version'));
const Releases = lazy(() => import('./pages/releases'));
const Rollout = lazy(() => import('./pages/rollout'));
const HookRuns = lazy(() => import('./pages/hook-runs'));
const HookRun = lazy(() => import('./pages/hook-run'));
const Inventory = lazy(() => import('./pages/inventory'));
const Audit = lazy(() => import('./pages/audit'));
const CliTokens = lazy(() => import('./pages/cli-tokens'));
const Streaming = lazy(() => import('./pages/streaming'));

/** Every page: its path pattern, component and the navigation entry it belongs to. */
const ROUTES: Array<{ pattern: string; page: Page; nav: string }> = [
  { pattern: '/', page: Overview, nav: '/' },
  { pattern: '/groups', page: Groups, nav: '/groups' },
  { pattern: '/groups/:id', page: Group, nav: '/groups' },
  { pattern: '/endpoints', page: Endpoints, nav: '/endpoints' },
  { pattern: '/endpoints/:id', page: Endpoint, nav: '/endpoints' },
  { pattern: '/policies', page: Policies, nav: '/policies' },
  { pattern: '/policies/:id', page: Policy, nav: '/policies' },
  { pattern: '/policies/:id/new', page: NewVersion, nav: '/policies' },
  { pattern: '/releases', page: Releases, nav: '/releases' },
  { pattern: '/releases/:id', page: Rollout, nav: '/releases' },
  { pattern: '/hook-runs', page: HookRuns, nav: '/hook-runs' },
  { pattern: '/hook-runs/:id', page: HookRun, nav: '/hook-runs' },
  { pattern: '/inventory', page: Inventory, nav: '/inventory' },
  { pattern: '/audit', page: Audit, nav: '/audit' },
  { pattern: '/cli-tokens', page: CliTokens, nav: '/cli-tokens' },
  { pattern: '/streaming', page: Streaming, nav: '/streaming' },
];

const NAV = [
  { to: '/', label: 'Overview' },
  { to: '/groups', label: 'Groups & endpoints' },
  { to: '/endpoints', label: 'All endpoints' },
  { to: '/policies', label: 'Policies' },
  { to: '/releases', label: 'Releases' },
  { to: '/hook-runs', label: 'Hook runs' },
  { to: '/inventory', label: 'Inventory' },
  { to: '/audit', label: 'Audit log' },
  { to: '/streaming', label: 'Streaming & alerts' },
];
/** Shown to people signed in with single sign-on: their personal tokens for the CLI. */
const SSO_NAV = [{ to: '/cli-tokens', label: 'CLI tokens' }];

export function App() {
  const { session, checking, signOut } = useSession();
  const location = useLocation();
  if (!session && checking) return <Loading what="session" />;
  if (!session) return <SignIn />;
  let found: { page: Page; params: Record<string, string>; nav: string } | null = null;
  for (const r of ROUTES) {
    const params = match(r.pattern, location.path);
    if (params) {
      found = { page: r.page, params, nav: r.nav };
      break;
    }
  }
  const Current = found?.page;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="sidebar-inner">
          <div className="brand">
            <img src="/console/favicon.svg" alt="" width={28} height={28} />
            <span>Hookwarden</span>
          </div>
          <nav aria-label="Main">
            <ul>
              {[...NAV, ...(session.kind === 'sso' ? SSO_NAV : [])].map((n) => (
                <li key={n.to}>
                  <Link to={n.to} aria-current={found?.nav === n.to ? 'page' : undefined}>
                    {n.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <GlobalSearch />
          <div className="whoami">
            <span className="whoami-name" data-testid="who" title={session.kind === 'sso' ? (session.email ?? '') : ''}>
              {session.name}
            </span>
            <span className={`role role-${session.role}`} data-testid="role">
              {session.role === 'admin' ? 'Admin' : 'Auditor · read-only'}
            </span>
            <button type="button" className="btn-ghost" onClick={() => signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary key={location.path}>
          <Suspense fallback={<Loading what="page" />}>
            {Current ? (
              <Current params={found!.params} />
            ) : (
              <div className="card">
                <h1>Not found</h1>
                <p>
                  There is no console page at <code>{location.path}</code>. <Link to="/">Go to the overview</Link>.
                </p>
              </div>
            )}
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
