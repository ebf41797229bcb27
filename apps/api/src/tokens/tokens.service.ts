// API tokens for people: create (secret shown once), list, revoke, and the first-start bootstrap token.
import { Injectable } from '@nestjs/common';
import type { ApiToken, Role } from '@prisma/client';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { AuthService } from '../auth/auth.service';
import { hashSecret, newSecret, secretPrefix, USER_TOKEN_PREFIX } from '../auth/principal';
import { ApiError } from '../common/api-error';
import { createdAtIdKey, decodeCursor, type Page, toPage } from '../common/pagination';
import { type TokenFilter, TokensRepository } from './tokens.repository';
import type { TokenView } from './tokens.dto';

const SYSTEM_ACTOR: AuditContext = { actorId: null, actorName: 'system', role: 'system' };

// Public view of a stored token (never the hash).
export function toTokenView(t: ApiToken): TokenView {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    prefix: t.prefix,
    createdAt: t.createdAt.toISOString(),
    createdBy: t.createdBy,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  };
}

@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly auth: AuthService,
  ) {}

  // Creates a token and returns its secret once.
  async create(
    input: { name: string; role: Role; expiresAt?: string },
    ctx: AuditContext,
  ): Promise<TokenView & { token: string }> {
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new ApiError('validation_failed', 'expiresAt must be in the future', [
        { path: '$.expiresAt', message: 'must be in the future' },
      ]);
    }
    const token = newSecret(USER_TOKEN_PREFIX);
    const row = await this.tokens.create(
      {
        name: input.name,
        role: input.role,
        tokenHash: hashSecret(token),
        prefix: secretPrefix(token),
        expiresAt,
        createdBy: ctx.actorName,
      },
      ctx,
    );
    return { ...toTokenView(row), token };
  }

  // On an empty database, creates the first admin token (the given secret or a random one) and returns the secret.
  async bootstrap(given?: string): Promise<string | null> {
    const token = given ?? newSecret(USER_TOKEN_PREFIX);
    const row = await this.tokens.createIfNone(
      {
        name: 'bootstrap admin',
        role: 'admin',
        tokenHash: hashSecret(token),
        prefix: secretPrefix(token),
        expiresAt: null,
        createdBy: 'system',
      },
      SYSTEM_ACTOR,
    );
    return row ? token : null;
  }

  // Revokes a token; it stops working at once on this instance and within seconds everywhere.
  async revoke(id: string, ctx: AuditContext): Promise<TokenView> {
    const row = await this.tokens.revoke(id, ctx, new Date());
    if (!row) throw new ApiError('not_found', `Token ${id} not found`);
    this.auth.invalidateToken(id);
    return toTokenView(row);
  }

  // Lists tokens newest first, one page at a time.
  async list(query: {
    limit: number;
    cursor?: string;
    role?: Role;
    active?: 'true' | 'false';
  }): Promise<Page<TokenView>> {
    const after = decodeCursor('tokens', query.cursor, createdAtIdKey);
    const filter: TokenFilter = {};
    if (query.role) filter.role = query.role;
    if (query.active) filter.active = query.active === 'true';
    const rows = await this.tokens.list(filter, query.limit + 1, after);
    return toPage('tokens', rows, query.limit, toTokenView, (t) => ({ t: t.createdAt.toISOString(), id: t.id }));
  }
}
