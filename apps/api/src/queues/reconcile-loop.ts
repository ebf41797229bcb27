// A worker's periodic re-creation of jobs PostgreSQL says must exist (Redis replication is asynchronous: a job
// written just before the master died may be missing on the promoted replica; an emptied Redis loses them all).
import type { Logger } from '@nestjs/common';

/** A started loop; stop() waits for the running pass. */
export interface ReconcileLoop {
  stop(): Promise<void>;
}

// Runs `pass` now and then every `intervalSec` (never two at once); a failed pass is logged and retried next time.
export function reconcileLoop(
  what: string,
  intervalSec: number,
  logger: Logger,
  pass: () => Promise<number>,
): ReconcileLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = (): void => {
    if (stopped) return;
    running = pass()
      .then(
        (made) => {
          if (made > 0) logger.warn(`re-created ${made} missing ${what}`);
        },
        (err: unknown) => logger.warn(`could not check the ${what} yet: ${(err as Error).message}`),
      )
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(tick, intervalSec * 1000);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
