import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';

/** The JSON schema of a zod schema, as advertised to the agent (no `$schema` key, no `$ref`s). */
export function toJsonSchema(schema: z.ZodTypeAny): Record<string, unknown> {
  const json = zodToJsonSchema(schema as Parameters<typeof zodToJsonSchema>[0], {
    $refStrategy: 'none',
    target: 'jsonSchema7',
  }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}
