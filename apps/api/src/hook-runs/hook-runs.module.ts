// Auditor queries over hook runs.
import { Module } from '@nestjs/common';
import { HookRunsController } from './hook-runs.controller';
import { HookRunsRepository } from './hook-runs.repository';
import { HookRunsService } from './hook-runs.service';

@Module({ controllers: [HookRunsController], providers: [HookRunsService, HookRunsRepository] })
export class HookRunsModule {}
