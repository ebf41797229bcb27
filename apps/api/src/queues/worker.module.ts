// BullMQ processors, registered only in the worker process.
import { Module } from '@nestjs/common';

@Module({ providers: [] })
export class WorkerModule {}
