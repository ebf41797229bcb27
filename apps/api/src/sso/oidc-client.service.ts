// The OpenID Connect relying party: discovery, the authorization code flow with PKCE, refresh and RP-initiated
// logout, through openid-client; ID tokens are verified against the issuer's JWKS (jose, with key rotation).
import { Inject, Injectable, Logger } from '@nestjs/common';
import * as jose from 'jose';
import * as oidc from 'openid-client';
import { ApiError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** Deadline of every request to the identity provider. */
const IDP_TIMEOUT_MS = 10_000;
/** Largest response body read from the identity provider. */
const IDP_MAX_BODY = 1024 * 1024;
/** After a failed discovery, the next attempt waits at least this long (requests meanwhile get 503 at once). */
const DISCOVERY_RETRY_MS = 5_000;
/** A key id unknown to the cached JWKS triggers a refetch at most this often (the IdP rotated its keys). */
const JWKS_COOLDOWN_MS = 1_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

/** What sign-in and refresh learn about the person. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  claims: Record<string, unknown>;
  refreshToken: string | null;
  idToken: string | null;
}

/** The parameters of one authorization request (kept server-side until the callback). */
export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The identity provider said no (invalid_grant and the like): the person must sign in again. */
export class IdpRefusedError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
    this.name = 'IdpRefusedError';
  }
}

// fetch with a deadline and a bounded body, for every request to the identity provider.
async function boundedFetch(url: string, init: RequestInit): Promise<Response> {
  const signal = init.signal
    ? AbortSignal.any([init.signal, AbortSignal.timeout(IDP_TIMEOUT_MS)])
    : AbortSignal.timeout(IDP_TIMEOUT_MS);
  const response = await fetch(url, { ...init, signal, redirect: 'manual' });
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > IDP_MAX_BODY) throw new Error(`identity provider response larger than ${IDP_MAX_BODY} bytes`);
  const chunks: Buffer[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > IDP_MAX_BODY) throw new Error(`identity provider response larger than ${IDP_MAX_BODY} bytes`);
      chunks.push(Buffer.from(chunk));
    }
  }
  const status = response.status;
  const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
  return new Response(body, { status, statusText: response.statusText, headers: response.headers });
}

@Injectable()
export class OidcClientService {
  private readonly logger = new Logger('Oidc');
  private configuration: Promise<oidc.Configuration> | null = null;
  private lastFailure = 0;
  private jwks: ReturnType<typeof jose.createRemoteJWKSet> | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  // Whether SSO is configured at all.
  get enabled(): boolean {
    return this.config.OIDC_ISSUER_URL !== undefined;
  }

  // The discovered configuration (cached; a failed discovery is retried after a pause, answering 503 meanwhile).
  private async discovered(): Promise<oidc.Configuration> {
    if (!this.enabled) throw new ApiError('not_found', 'Single sign-on is not configured on this server');
    if (!this.configuration) {
      if (Date.now() - this.lastFailure < DISCOVERY_RETRY_MS) throw unreachable();
      const c = this.config;
      const insecure = c.OIDC_ALLOW_INSECURE_ISSUER && new URL(c.OIDC_ISSUER_URL!).protocol === 'http:';
      this.configuration = oidc
        .discovery(
          new URL(c.OIDC_ISSUER_URL!),
          c.OIDC_CLIENT_ID!,
          { redirect_uris: [c.OIDC_REDIRECT_URL!], response_types: ['code'] },
          oidc.ClientSecretBasic(c.OIDC_CLIENT_SECRET),
          {
            timeout: IDP_TIMEOUT_MS / 1000,
            [oidc.customFetch]: boundedFetch,
            ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
          },
        )
        .then((configuration) => {
          const jwksUri = configuration.serverMetadata().jwks_uri;
          if (!jwksUri) throw new Error('the issuer publishes no jwks_uri');
          this.jwks = jose.createRemoteJWKSet(new URL(jwksUri), {
            timeoutDuration: IDP_TIMEOUT_MS,
            cooldownDuration: JWKS_COOLDOWN_MS,
            cacheMaxAge: JWKS_MAX_AGE_MS,
            [jose.customFetch]: boundedFetch,
          });
          return configuration;
        });
      this.configuration.catch((err: unknown) => {
        this.logger.warn(`OpenID discovery at ${c.OIDC_ISSUER_URL} failed: ${(err as Error).message}`);
        this.configuration = null;
        this.lastFailure = Date.now();
      });
    }
    try {
      return await this.configuration;
    } catch {
      throw unreachable();
    }
  }

  // Builds the authorization request (state, nonce, PKCE S256) the browser is redirected to.
  async authorizationRequest(): Promise<AuthorizationRequest> {
    const configuration = await this.discovered();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.config.OIDC_REDIRECT_URL!,
      scope: this.config.OIDC_SCOPES,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  // Exchanges the callback's code (checking state, nonce, PKCE) and verifies the ID token's signature.
  async completeSignIn(
    query: URLSearchParams,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<OidcIdentity> {
    const configuration = await this.discovered();
    const currentUrl = new URL(this.config.OIDC_REDIRECT_URL!);
    currentUrl.search = query.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw refusal(err);
    }
    return this.identityFrom(configuration, tokens, null);
  }

  // Uses the refresh token to re-read the person's claims (groups) from the IdP.
  async refresh(refreshToken: string, subject: string): Promise<OidcIdentity> {
    const configuration = await this.discovered();
    let tokens: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;
    try {
      tokens = await oidc.refreshTokenGrant(configuration, refreshToken);
    } catch (err) {
      throw refusal(err);
    }
    const identity = await this.identityFrom(configuration, tokens, subject);
    return { ...identity, refreshToken: identity.refreshToken ?? refreshToken };
  }

  // The IdP's RP-initiated logout URL, when it offers one.
  async endSessionUrl(idTokenHint: string | null): Promise<string | null> {
    if (!this.enabled) return null;
    const configuration = await this.discovered().catch(() => null);
    if (!configuration?.serverMetadata().end_session_endpoint) return null;
    // Back to the console's sign-in page afterwards (register it at the IdP as a post-logout redirect URI).
    const params: Record<string, string> = {
      client_id: this.config.OIDC_CLIENT_ID!,
      post_logout_redirect_uri: new URL('/console/', this.config.OIDC_REDIRECT_URL).href,
    };
    if (idTokenHint) params.id_token_hint = idTokenHint;
    return oidc.buildEndSessionUrl(configuration, params).href;
  }

  // Verifies the ID token (signature through the JWKS; issuer, audience, expiry) and merges UserInfo claims when
  // the groups claim is not in the ID token.
  private async identityFrom(
    configuration: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
    expectedSubject: string | null,
  ): Promise<OidcIdentity> {
    const issuer = configuration.serverMetadata().issuer;
    let claims: Record<string, unknown> = {};
    if (tokens.id_token) {
      try {
        const verified = await jose.jwtVerify(tokens.id_token, this.jwks!, {
          issuer,
          audience: this.config.OIDC_CLIENT_ID!,
          clockTolerance: 30,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        claims = { ...verified.payload };
      } catch (err) {
        throw new IdpRefusedError('invalid_id_token', `the ID token did not verify: ${(err as Error).message}`);
      }
    } else if (expectedSubject === null) {
      throw new IdpRefusedError('invalid_id_token', 'the identity provider returned no ID token');
    }
    const subject = typeof claims.sub === 'string' ? claims.sub : expectedSubject;
    if (!subject) throw new IdpRefusedError('invalid_id_token', 'the ID token names no subject');
    if (expectedSubject !== null && subject !== expectedSubject) {
      throw new IdpRefusedError('subject_changed', 'the identity provider answered for another person');
    }
    if (!(this.config.OIDC_GROUPS_CLAIM.split('.')[0]! in claims) && tokens.access_token) {
      const info = await oidc.fetchUserInfo(configuration, tokens.access_token, subject).catch((err: unknown) => {
        this.logger.warn(`UserInfo request failed: ${(err as Error).message}`);
        return null;
      });
      if (info) claims = { ...info, ...claims, ...pick(info, this.config.OIDC_GROUPS_CLAIM.split('.')[0]!) };
    }
    return {
      issuer,
      subject,
      email: typeof claims.email === 'string' ? claims.email.slice(0, 320) : null,
      name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null,
      claims,
      refreshToken: tokens.refresh_token ?? null,
      idToken: tokens.id_token ?? null,
    };
  }
}

// The one key of an object, if present.
function pick(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.hasOwn(obj, key) ? { [key]: obj[key] } : {};
}

// The 503 answered while the identity provider cannot be reached.
function unreachable(): ApiError {
  return new ApiError(
    'unavailable',
    'The identity provider cannot be reached right now; try again shortly',
    undefined,
    {
      'retry-after': String(DISCOVERY_RETRY_MS / 1000),
    },
  );
}

// Classifies a failed grant: an OAuth error answer from the IdP is a refusal; anything else is a transport failure.
function refusal(err: unknown): Error {
  if (err instanceof oidc.ResponseBodyError) {
    return new IdpRefusedError(err.error, err.error_description ?? err.error);
  }
  if (err instanceof oidc.AuthorizationResponseError) {
    return new IdpRefusedError(err.error, err.error_description ?? err.error);
  }
  if (err instanceof oidc.ClientError || (err instanceof Error && err.name === 'OperationProcessingError')) {
    return new IdpRefusedError('invalid_response', err.message);
  }
  return err instanceof Error ? err : new Error(String(err));
}
