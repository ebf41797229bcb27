// A real OpenID Provider (oidc-provider, a certified implementation) on loopback for SSO tests: test users with
// mutable groups, a login step the test drives, key rotation, and a switch to serve a tampered JWKS.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface TestUser {
  email: string;
  name: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  users: Map<string, TestUser>;
  /** The account the next login interaction signs in as. */
  signInAs(subject: string): void;
  /** Replaces the signing key (the old one stays published for verification, as real IdPs rotate). */
  rotateKeys(): Promise<void>;
  /** Serves a JWKS without the key that signs (what an attacker's or broken JWKS endpoint looks like). */
  tamperJwks(on: boolean): void;
  close(): Promise<void>;
}

// Generates one RS256 signing key as a private JWK with a fresh key id.
async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    ...jwk,
    kid: `k${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    alg: 'RS256',
    use: 'sig',
  };
}

// Starts the provider on 127.0.0.1 with one confidential client whose redirect URI is `redirectUri`.
export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const clientId = 'hookwarden-test';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const users = new Map<string, TestUser>();
  let next = '';
  let tampered = false;
  let keys: JWK[] = [await newKey()];
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Builds a provider instance for the current keys (a rotation builds a new one at the same issuer).
  const build = (): Provider => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          post_logout_redirect_uris: [new URL('/console/', redirectUri).href],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys },
      cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
      claims: { openid: ['sub'], email: ['email'], profile: ['name', 'groups'] },
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      findAccount: (_ctx, sub) => {
        const user = users.get(sub);
        if (!user) return undefined;
        return {
          accountId: sub,
          claims: () => ({ sub, email: user.email, name: user.name, groups: [...user.groups] }),
        };
      },
      // First-party client: every requested scope and claim is granted without a consent screen.
      loadExistingGrant: async (ctx) => {
        const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid email profile offline_access');
        await grant.save();
        return grant;
      },
    });
    return provider;
  };

  let provider = build();
  server.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name !== 'login') throw new Error(`unexpected prompt ${details.prompt.name}`);
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: next } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      if (tampered && url.pathname === '/jwks') {
        const other = await newKey();
        const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = other;
        res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: [pub] }));
        return;
      }
      await provider.callback()(req, res);
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    users,
    signInAs: (subject) => {
      next = subject;
    },
    rotateKeys: async () => {
      keys = [await newKey(), ...keys];
      provider = build();
    },
    tamperJwks: (on) => {
      tampered = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
