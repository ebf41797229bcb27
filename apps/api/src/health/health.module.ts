import { Module } from '@nestjs/common';
import { PgPoolsModule } from '../database/pg-pools';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Module({ imports: [PgPoolsModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
