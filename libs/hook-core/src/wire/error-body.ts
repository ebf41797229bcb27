// The one error body every API error answers with: { error: { code, message, details?, requestId } }.
import { z } from 'zod';

/** Where one problem is: a JSON path inside the document and/or a request field, or a TOML line/column. */
export const errorDetailSchema = z
  .object({
    message: z.string(),
    code: z.string().optional(),
    severity: z.enum(['error', 'warning']).optional(),
    file: z.string().optional(),
    path: z.string().optional(),
    field: z.string().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  })
  .loose();
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

/** The error body of every non-2xx API answer. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
    requestId: z.string().optional(),
  }),
});
export type ErrorBody = { error: { code: string; message: string; details?: unknown; requestId: string } };

/** The one decoder of this body, shared with every client (browser-safe, in ./http). */
export { parseErrorBody } from './http';
