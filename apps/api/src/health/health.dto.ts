// Response schemas of the health probes.
import { createZodDto } from '../common/zod-dto';
import { z } from 'zod';

export class LivenessDto extends createZodDto(z.object({ status: z.literal('ok') })) {}

export class ReadinessDto extends createZodDto(
  z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.literal('ok')) }),
) {}
