// Request/response shapes of the hook-run upload.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

export const uploadAcceptedSchema = z.object({
  accepted: z.number().int().describe('records in the batch, queued for ingest'),
  jobId: z.string().nullable().describe('ingest job id (null when nothing needed writing)'),
});
export class UploadAcceptedDto extends createZodDto(uploadAcceptedSchema) {}

/** Header carrying the spool's total dropped-record count (never silent: recorded as a finding). */
export const DROPPED_HEADER = 'x-hookwarden-records-dropped';
