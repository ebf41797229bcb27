// BullMQ processors, registered only in the worker process.
import { Module } from '@nestjs/common';
import { ReleasesModule } from '../releases/releases.module';
import { RolloutProcessor } from '../releases/rollout.processor';

@Module({ imports: [ReleasesModule], providers: [RolloutProcessor] })
export class WorkerModule {}
