// Renders every error as { error: { code, message, details?, requestId } }; unknown errors are logged 500s.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { ErrorBody } from '@hookwarden/hook-core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodValidationException } from 'nestjs-zod';
import { ZodError } from 'zod';
import { ApiError, codeForStatus } from './api-error';
import { mapDatabaseError } from './db-errors';
import { redactUrl } from './redact';
import { describeIssues } from './validation.pipe';
import { zodIssues } from './zod-issues';

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const requestId = String(request.id);
    const { status, body, headers } = this.describe(exception, requestId);
    // Already answering (a stream failed after its first byte): cut the connection so the client sees a broken
    // transfer, never a complete-looking one.
    if (reply.sent || reply.raw.headersSent) {
      this.logger.error(
        { err: exception, requestId, method: request.method, url: redactUrl(request.url) },
        'response failed',
      );
      reply.raw.destroy();
      return;
    }
    if (status === 503) {
      // An expected outage (no primary, Redis failing over): one line per request, no stack — the answer carries
      // Retry-After, and a failover must not bury the log in traces.
      this.logger.warn(
        { requestId, method: request.method, url: redactUrl(request.url), cause: outageCause(exception) },
        body.error.message,
      );
    } else if (status >= 500) {
      this.logger.error(
        { err: exception, requestId, method: request.method, url: redactUrl(request.url) },
        'unhandled error',
      );
    }
    for (const [k, v] of Object.entries(headers)) void reply.header(k, v);
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
  }

  // Converts any thrown value into a status, body and extra headers.
  private describe(
    exception: unknown,
    requestId: string,
  ): { status: number; body: ErrorBody; headers: Record<string, string> } {
    const mapped = exception instanceof ApiError ? exception : mapDatabaseError(exception);
    if (mapped) exception = mapped;
    if (exception instanceof ApiError) {
      return {
        status: exception.status,
        body: { error: { code: exception.code, message: exception.message, details: exception.details, requestId } },
        headers: exception.headers ?? {},
      };
    }
    if (exception instanceof ZodValidationException) {
      const zodError = exception.getZodError();
      const details = zodError instanceof ZodError ? zodIssues(zodError) : undefined;
      return {
        status: 400,
        body: { error: { code: 'validation_failed', message: describeIssues(details), details, requestId } },
        headers: {},
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const message =
        typeof response === 'string'
          ? response
          : typeof (response as { message?: unknown }).message === 'string'
            ? (response as { message: string }).message
            : exception.message;
      // Framework-level request errors (e.g. a body that is not valid JSON) concern the whole body.
      const details = [400, 413, 415].includes(status) ? [{ path: '$', message, code: 'invalid_body' }] : undefined;
      return { status, body: { error: { code: codeForStatus(status), message, details, requestId } }, headers: {} };
    }
    const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
    if (
      typeof fastifyError.statusCode === 'number' &&
      fastifyError.statusCode >= 400 &&
      fastifyError.statusCode < 500
    ) {
      const message = fastifyError.message ?? 'Bad request';
      // Body parsing errors (malformed JSON, wrong content type, too large) are located at the body root.
      const details = fastifyError.code?.startsWith('FST_ERR_CTP')
        ? [{ path: '$', message, code: fastifyError.code }]
        : undefined;
      return {
        status: fastifyError.statusCode,
        body: { error: { code: codeForStatus(fastifyError.statusCode), message, details, requestId } },
        headers: {},
      };
    }
    return {
      status: 500,
      body: { error: { code: 'internal', message: `Internal error (request id ${requestId})`, requestId } },
      headers: {},
    };
  }
}

// The short reason behind a 503 for the log: the driver's error code and the first line of its message.
function outageCause(exception: unknown): string {
  if (!(exception instanceof Error)) return typeof exception;
  const code = (exception as { code?: unknown }).code;
  const line = (exception.message.split('\n', 1)[0] ?? '').slice(0, 200);
  return typeof code === 'string' ? `${code}: ${line}` : line;
}
