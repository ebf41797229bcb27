// Validates every @Query, @Param and @Body with its DTO's zod schema; failures name where (query, path, body).
import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { ZodValidationException, ZodValidationPipe } from 'nestjs-zod';
import { ZodError } from 'zod';
import { ApiError } from './api-error';
import { type IssueDetail, type IssueLocation, zodIssues } from './zod-issues';

const LOCATION: Partial<Record<ArgumentMetadata['type'], IssueLocation>> = {
  query: 'query',
  param: 'path',
  body: 'body',
};

// One-line summary of validation issues for the error message.
export function describeIssues(details: IssueDetail[] | undefined): string {
  if (!details || details.length === 0) return 'Request validation failed';
  const first = details[0]!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  const where = first.in === 'query' ? ' (query)' : first.in === 'path' ? ' (path)' : '';
  return `Invalid request: ${first.path}${where}: ${first.message}${more}`;
}

@Injectable()
export class ApiValidationPipe implements PipeTransform {
  private readonly zod = new ZodValidationPipe();

  // Parses the value; a zod failure becomes a 400 whose details list every issue with its location.
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    try {
      return this.zod.transform(value, metadata);
    } catch (err) {
      if (!(err instanceof ZodValidationException)) throw err;
      const zodError = err.getZodError();
      const where = LOCATION[metadata.type];
      const details = zodError instanceof ZodError ? zodIssues(zodError, where) : [];
      throw new ApiError('validation_failed', describeIssues(details), details);
    }
  }
}

/** A UUID path parameter; a bad one is a 400 naming the parameter (`$.<name>`, in: path). */
@Injectable()
export class UuidParamPipe implements PipeTransform<unknown, string> {
  // Returns the UUID (lower case) or throws the 400.
  transform(value: unknown, metadata: ArgumentMetadata): string {
    const name = metadata.data ?? 'id';
    if (typeof value === 'string' && /^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$/.test(value)) {
      return value.toLowerCase();
    }
    throw new ApiError('validation_failed', `Invalid request: ${name} (path): must be a UUID`, [
      { path: `$.${name}`, in: 'path', message: 'must be a UUID', code: 'invalid_format' },
    ]);
  }
}
