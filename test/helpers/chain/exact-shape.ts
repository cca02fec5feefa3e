import { expect } from 'vitest';
import { z } from 'zod';

/**
 * Asserts that `value` has exactly the keys the schema declares at every level (required keys present,
 * nothing extra) and that it parses: the Cosmos gateway emits every field, so a missing key is a bug.
 */
export function expectExactShape(schema: z.ZodTypeAny, value: unknown, path = '$'): void {
  expect(
    schema.safeParse(value).success,
    `${path} parses: ${JSON.stringify(schema.safeParse(value).error?.issues[0])}`,
  ).toBe(true);
  walk(schema, value, path);
}

function walk(schema: z.ZodTypeAny, value: unknown, path: string): void {
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    if (value !== null && value !== undefined) walk(schema.unwrap() as z.ZodTypeAny, value, path);
    return;
  }
  if (schema instanceof z.ZodArray) {
    (value as unknown[]).forEach((item, i) => walk(schema.element as z.ZodTypeAny, item, `${path}[${i}]`));
    return;
  }
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    const required = Object.keys(shape).filter((k) => !(shape[k] instanceof z.ZodOptional));
    const actual = Object.keys(value as object);
    expect(
      actual.filter((k) => !(k in shape)),
      `${path}: unexpected keys`,
    ).toEqual([]);
    expect(
      required.filter((k) => !actual.includes(k)),
      `${path}: missing keys`,
    ).toEqual([]);
    for (const key of actual)
      walk(shape[key] as z.ZodTypeAny, (value as Record<string, unknown>)[key], `${path}.${key}`);
  }
}
