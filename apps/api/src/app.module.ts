// The API's module graph; main.ts (HTTP) and worker.ts (BullMQ processors) both build on it.
import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AgentModule } from './agent/agent.module';
import { AuditLogModule } from './audit-log/audit-log.module';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/error.filter';
import { redactingSerializers } from './common/redact';
import { ApiValidationPipe } from './common/validation.pipe';
import { ConfigModule } from './config/config.module';
import { EndpointsModule } from './endpoints/endpoints.module';
import { EnrollmentModule } from './enrollment/enrollment.module';
import { FleetModule } from './fleet/fleet.module';
import type { AppConfig } from './config/config.schema';
import { GroupsModule } from './groups/groups.module';
import { PoliciesModule } from './policies/policies.module';
import { HealthModule } from './health/health.module';
import { HookRunsModule } from './hook-runs/hook-runs.module';
import { IngestModule } from './ingest/ingest.module';
import { InventoryModule } from './inventory/inventory.module';
import { MetricsCoreModule, MetricsModule } from './metrics/metrics.module';
import { AuditSettingsModule } from './audit-settings/audit-settings.module';
import { DatabaseModule } from './database/database.module';
import { QueuesModule } from './queues/queues.module';
import { RedisModule } from './redis/redis.module';
import { ReleasesModule } from './releases/releases.module';
import { SavedViewsModule } from './saved-views/saved-views.module';
import { SearchModule } from './search/search.module';
import { SigningModule } from './signing/signing.module';
import { SsoModule } from './sso/sso.module';
import { StreamingModule } from './streaming/streaming.module';
import { TokensModule } from './tokens/tokens.module';
import { ShutdownWatchdog } from './common/shutdown-watchdog';

/** Feature modules shared by the HTTP server and the worker. */
export const FEATURE_MODULES = [
  HealthModule,
  TokensModule,
  GroupsModule,
  PoliciesModule,
  AuditLogModule,
  SigningModule,
  EnrollmentModule,
  EndpointsModule,
  ReleasesModule,
  AgentModule,
  IngestModule,
  HookRunsModule,
  AuditSettingsModule,
  SsoModule,
  InventoryModule,
  StreamingModule,
  MetricsModule,
  FleetModule,
  SearchModule,
  SavedViewsModule,
];

@Module({})
export class AppModule {
  // Builds the application module for a parsed configuration.
  static forRoot(config: AppConfig, extra: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          // Probes and the agents' bundle long poll are requested constantly: no per-request log middleware there
          // (the bundle route logs its own failures).
          exclude: [
            { method: RequestMethod.GET, path: 'healthz' },
            { method: RequestMethod.GET, path: 'readyz' },
            { method: RequestMethod.GET, path: 'v1/agent/bundle' },
            { method: RequestMethod.GET, path: 'metrics' },
          ],
          pinoHttp: {
            level: config.LOG_LEVEL,
            // Credentials never reach the log: headers, and URLs/queries that carry one (see common/redact.ts).
            serializers: redactingSerializers,
            redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
            quietReqLogger: true,
            ...(config.LOG_PRETTY ? { transport: { target: 'pino-pretty' } } : {}),
          },
        }),
        DatabaseModule,
        RedisModule,
        MetricsCoreModule,
        QueuesModule,
        AuthModule,
        ...FEATURE_MODULES,
        ...extra,
      ],
      providers: [
        ShutdownWatchdog,
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
