import type { z } from 'zod';
import type { zodToJsonSchema as ZodToJsonSchema } from 'zod-to-json-schema';

let converter: Promise<typeof ZodToJsonSchema> | undefined;

/**
 * Loads the converter on the first message that advertises tools or actions (it is the largest part of the
 * library, and chats without tools never need it).
 */
export function loadJsonSchemaConverter(): Promise<(schema: z.ZodTypeAny) => Record<string, unknown>> {
  converter ??= import('zod-to-json-schema').then((m) => m.zodToJsonSchema);
  return converter.then((zodToJsonSchema) => (schema) => toJsonSchema(zodToJsonSchema, schema));
}

/** The JSON schema of a zod schema, as advertised to the agent (no `$schema` key, no `$ref`s). */
function toJsonSchema(
  zodToJsonSchema: typeof ZodToJsonSchema,
  schema: z.ZodTypeAny,
): Record<string, unknown> {
  const json = zodToJsonSchema(schema as Parameters<typeof ZodToJsonSchema>[0], {
    $refStrategy: 'none',
    target: 'jsonSchema7',
  }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}
