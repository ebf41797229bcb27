// The worker's start-up check of its job handlers against the job table (a provider of the worker module: it runs
// while providers are created, before any BullMQ worker starts).
import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { checkJobHandlers } from './job-handlers';

/** Thrown when the worker's handlers do not match the job table; the worker then does not start. */
export class JobHandlersMismatch extends Error {
  constructor(readonly problems: string[]) {
    super(`the worker's job handlers do not match the job table: ${problems.join('; ')}`);
    this.name = 'JobHandlersMismatch';
  }
}

@Injectable()
export class JobHandlersCheck {
  // Refuses the worker unless every job of the table has exactly one handler, on a processor of its queue.
  constructor(discovery: DiscoveryService) {
    const classes = discovery
      .getProviders()
      .filter((w) => typeof w.metatype === 'function' && !w.inject)
      .map((w) => w.metatype as abstract new (...args: never[]) => unknown);
    const problems = checkJobHandlers(classes);
    if (problems.length > 0) throw new JobHandlersMismatch(problems);
  }
}
