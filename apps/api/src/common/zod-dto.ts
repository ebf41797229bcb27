// createZodDto with a registry: every DTO class the OpenAPI document names is recorded with its zod schema, so the
// document's component schemas can be generated straight from zod for OpenAPI 3.0 (openapi.ts).
import { createZodDto as nestjsCreateZodDto } from 'nestjs-zod';
import type { z } from 'zod';

/** DTO class name → its zod schema (filled as Swagger reads the DTOs). */
export const DTO_SCHEMAS = new Map<string, z.ZodType>();

interface MetadataSource {
  name: string;
  schema: z.ZodType;
}

// nestjs-zod's createZodDto; the DTO registers itself (under its class name) when Swagger reads its metadata.
export function createZodDto<S extends z.ZodType>(schema: S) {
  const Base = nestjsCreateZodDto(schema);
  const read = Reflect.get<typeof Base, '_OPENAPI_METADATA_FACTORY'>(Base, '_OPENAPI_METADATA_FACTORY');
  Object.defineProperty(Base, '_OPENAPI_METADATA_FACTORY', {
    configurable: true,
    writable: true,
    // Static: `this` is the subclass Swagger reads (`class CreateGroupDto extends createZodDto(...)`).
    value(this: MetadataSource): unknown {
      DTO_SCHEMAS.set(this.name, this.schema);
      return read.call(this);
    },
  });
  return Base;
}
