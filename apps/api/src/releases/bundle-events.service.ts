// Redis pub/sub of "this group's bundle changed": one channel per deployment prefix, one subscription per process.
import { Injectable, Logger } from '@nestjs/common';
import { RedisService } from '../redis/redis.module';

/** Receives a group id, `revoked:<endpointId>`, `credential:<endpointId>`, `readmitted:<endpointId>`, or null ("anything may have changed"). */
export type BundleEventHandler = (message: string | null) => void;

@Injectable()
export class BundleEventsService {
  private readonly logger = new Logger('BundleEvents');
  private readonly handlers = new Set<BundleEventHandler>();
  private subscribed = false;
  readonly channel: string;

  constructor(private readonly redis: RedisService) {
    this.channel = redis.key('bundle-events');
  }

  // Announces that a group's bundle changed; local handlers run at once (no Redis round trip for this instance).
  async publish(groupId: string): Promise<void> {
    for (const h of this.handlers) h(groupId);
    try {
      await this.redis.client.publish(this.channel, groupId);
    } catch (err) {
      this.logger.warn(
        { err, groupId },
        'could not publish a bundle change; other instances catch up within the cache TTL',
      );
    }
  }

  /** Message prefix announcing a revoked endpoint (its held requests end with 401 on every instance). */
  static readonly REVOKED = 'revoked:';

  // Announces a revoked endpoint.
  async publishRevoked(endpointId: string): Promise<void> {
    await this.publish(BundleEventsService.REVOKED + endpointId);
  }

  /** Message prefix announcing a rotated endpoint credential (re-enrollment): the old one stops working everywhere. */
  static readonly CREDENTIAL = 'credential:';

  // Announces that an endpoint's credential was replaced.
  async publishCredentialRotated(endpointId: string): Promise<void> {
    await this.publish(BundleEventsService.CREDENTIAL + endpointId);
  }

  /** Message prefix announcing a re-admitted endpoint (revoked before): its credential works again everywhere. */
  static readonly READMITTED = 'readmitted:';

  // Announces that a revoked endpoint was re-admitted.
  async publishReadmitted(endpointId: string): Promise<void> {
    await this.publish(BundleEventsService.READMITTED + endpointId);
  }

  // Registers a handler; the first one subscribes the process. `null` means "everything may have changed"
  // (after a reconnect, when messages may have been missed).
  async subscribe(handler: BundleEventHandler): Promise<void> {
    this.handlers.add(handler);
    if (this.subscribed) return;
    this.subscribed = true;
    const sub = this.redis.subscriber;
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      for (const h of this.handlers) h(message);
    });
    let first = sub.status !== 'ready';
    sub.on('ready', () => {
      if (first) {
        first = false;
        return;
      }
      for (const h of this.handlers) h(null);
    });
    await sub.subscribe(this.channel);
  }
}
