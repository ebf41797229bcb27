// Vault-style required audit delivery: while a destination that must record the admin audit log cannot deliver
// (failing or dead-lettered), admin writes answer 503 with Retry-After. Reads, agents, and the streaming routes
// themselves (to repair or replay the destination) are not held. The state is read at most once a second per process.
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import type { AuthedRequest } from '../auth/auth.decorators';
import { StreamingRepository } from './streaming.repository';

/** How long one read of the blocking destinations is used. */
const CACHE_MS = 1000;
const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

@Injectable()
export class AuditDeliveryGuard implements CanActivate {
  private cached: { at: number; blocking: Array<{ name: string; state: string; lastError: string | null }> } | null =
    null;

  constructor(private readonly repository: StreamingRepository) {}

  // Lets every request through except an admin write while a required audit destination cannot deliver.
  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (!WRITE_METHODS.has(req.method)) return true;
    const p = req.principal;
    if (!p || p.kind !== 'user' || p.role !== 'admin') return true;
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path.startsWith('/v1/streaming/')) return true;
    const blocking = await this.blocking();
    if (blocking.length === 0) return true;
    const b = blocking[0]!;
    throw new ApiError(
      'unavailable',
      `Admin changes are refused while the audit log cannot be delivered to destination "${b.name}" (${b.state}` +
        `${b.lastError ? `: ${b.lastError}` : ''}); it requires audit delivery`,
      { destinations: blocking.map((x) => x.name) },
      { 'retry-after': '5' },
    );
  }

  // The blocking destinations (cached for CACHE_MS).
  private async blocking(): Promise<Array<{ name: string; state: string; lastError: string | null }>> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.blocking;
    const blocking = await this.repository.blockingAuditDestinations();
    this.cached = { at: Date.now(), blocking };
    return blocking;
  }
}
