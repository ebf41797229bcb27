// Streaming evidence to SIEMs and webhooks, and alerts (docs/streaming.md): the API routes, the required-audit-delivery
// guard and the repositories; the worker adds the delivery and alert loops (StreamingWorkerModule).
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { KeyVaultModule } from '../signing/key-vault.module';
import { AlertsRepository } from './alerts.repository';
import { AlertsService } from './alerts.service';
import { AuditDeliveryGuard } from './audit-delivery.guard';
import { DeliveryService } from './delivery.service';
import { AlertsController, StreamingController } from './streaming.controller';
import { StreamingRepository } from './streaming.repository';
import { StreamingService } from './streaming.service';

@Module({
  imports: [KeyVaultModule],
  controllers: [StreamingController, AlertsController],
  providers: [
    StreamingRepository,
    StreamingService,
    AlertsRepository,
    AlertsService,
    { provide: APP_GUARD, useClass: AuditDeliveryGuard },
  ],
  exports: [StreamingService, StreamingRepository, AlertsService],
})
export class StreamingModule {}

/** The worker's part: one delivery runner per destination and the alert evaluation. */
@Module({ imports: [StreamingModule], providers: [DeliveryService] })
export class StreamingWorkerModule {}
