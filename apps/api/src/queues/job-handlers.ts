// Job handlers: processor methods marked @HandlesJob(name), run by JobProcessor after the payload is validated
// against the job table; checkJobHandlers is the start-up rule (every job exactly one handler, on its queue).
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { type Job, UnrecoverableError } from 'bullmq';
import { isJobName, JOB_NAMES, JOB_TABLE, type JobName, type JobPayload } from './jobs';
import type { QueueName } from './queue-names';

/** A handler's location: its class and method. */
interface HandlerRef {
  name: JobName;
  method: string;
}

type Ctor = abstract new (...args: never[]) => unknown;

const handlersOf = new WeakMap<object, HandlerRef[]>();
const queueOf = new WeakMap<object, QueueName>();

// Marks a processor class: a BullMQ processor of `queue` whose @HandlesJob methods run its jobs.
export function JobsProcessor(queue: QueueName): ClassDecorator {
  return (target) => {
    queueOf.set(target, queue);
    Processor(queue)(target);
  };
}

// Marks a method as the handler of job `name`: it receives the validated payload (typed by the table) and the job.
export function HandlesJob<N extends JobName>(name: N) {
  return <T extends (data: JobPayload<N>, job: Job) => Promise<unknown>>(
    target: object,
    method: string,
    _descriptor: TypedPropertyDescriptor<T>,
  ): void => {
    const cls = target.constructor;
    handlersOf.set(cls, [...(handlersOf.get(cls) ?? []), { name, method }]);
  };
}

// The @HandlesJob methods declared on a class.
function declaredHandlers(cls: object): HandlerRef[] {
  return handlersOf.get(cls) ?? [];
}

// Every problem of a worker's handlers against the job table: a job without a handler, with two, or handled on
// another queue's processor. `classes` are the worker's providers. Empty when the worker may start.
export function checkJobHandlers(classes: readonly Ctor[]): string[] {
  const found = new Map<JobName, string[]>(JOB_NAMES.map((n) => [n, []]));
  const problems: string[] = [];
  for (const cls of new Set(classes)) {
    for (const h of declaredHandlers(cls)) {
      const where = `${cls.name}.${h.method}`;
      found.get(h.name)!.push(where);
      const queue = queueOf.get(cls);
      if (queue !== JOB_TABLE[h.name].queue) {
        problems.push(
          `${where} handles job "${h.name}" of queue ${JOB_TABLE[h.name].queue} but processes ${queue ?? 'no queue'}`,
        );
      }
    }
  }
  for (const [name, where] of found) {
    if (where.length === 0) problems.push(`job "${name}" (queue ${JOB_TABLE[name].queue}) has no handler`);
    if (where.length > 1) problems.push(`job "${name}" has ${where.length} handlers: ${where.join(', ')}`);
  }
  return problems;
}

/** A BullMQ processor whose jobs run through its @HandlesJob methods, each payload validated first. */
export abstract class JobProcessor extends WorkerHost {
  // Runs the job's handler with its validated payload; an unknown job or a bad payload fails without retries.
  async process(job: Job): Promise<unknown> {
    const name = job.name;
    if (!isJobName(name)) throw new UnrecoverableError(`unknown job "${name}" on queue ${job.queueName}`);
    const handler = declaredHandlers(this.constructor).find((h) => h.name === name);
    if (!handler) throw new UnrecoverableError(`job "${name}" has no handler on ${this.constructor.name}`);
    const parsed = JOB_TABLE[name].payload.safeParse(job.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path.length ? `$.${issue.path.join('.')}` : '$';
      throw new UnrecoverableError(`job "${name}" ${job.id ?? ''}: invalid payload at ${at}: ${issue?.message}`);
    }
    const run = (this as unknown as Record<string, (data: unknown, job: Job) => Promise<unknown>>)[handler.method]!;
    return run.call(this, parsed.data, job);
  }
}
