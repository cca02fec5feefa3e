import { z } from 'zod';
import { VALIDATOR_NAMES } from './validators.js';

/** Node ids, action names, notice keys, placeholders and saved fields: camelCase names. */
export const NAME = /^[a-z][A-Za-z0-9]*$/;
const name = z.string().regex(NAME, 'must be a camelCase name like pinEntry');

/** Language codes: two or three lower-case letters (ISO 639). */
export const LanguagesSection = z.record(
  z.string().regex(/^[a-z]{2,3}$/, 'a language code is two or three lower-case letters, like en'),
  z.string().min(1, 'give the language name as its speakers write it, like Kiswahili'),
);

/** A text in every language: `{ en: ..., sw: ... }`. */
function translated(languages: readonly string[]): z.ZodType<Record<string, string>, z.ZodTypeDef, unknown> {
  const record = z.record(z.string(), z.string({ invalid_type_error: 'a translation must be text' }));
  return record
    .superRefine((text, ctx) => {
      for (const lang of languages) {
        if (text[lang] === undefined)
          ctx.addIssue({ code: 'custom', message: `missing translation "${lang}"` });
        else if (text[lang].trim() === '')
          ctx.addIssue({ code: 'custom', path: [lang], message: 'empty translation' });
      }
      for (const lang of Object.keys(text)) {
        if (!languages.includes(lang)) {
          ctx.addIssue({
            code: 'custom',
            path: [lang],
            message: `unknown language "${lang}" (declared: ${languages.join(', ')})`,
          });
        }
      }
    })
    .transform((text) =>
      Object.fromEntries(Object.entries(text).map(([lang, value]) => [lang, value.trim()])),
    );
}

function buildSchema(languages: readonly string[]) {
  const text = translated(languages);
  const targets = z.union([name, z.array(name).min(1)], {
    errorMap: () => ({ message: 'next is a node id, or (after an action) a list of node ids' }),
  });
  const back = z.union([z.literal(false), name], {
    errorMap: () => ({ message: 'back is a node id, or false for no back' }),
  });
  const option = z
    .object({
      key: z.union([z.number().int(), z.string()]).transform(String),
      label: text,
      next: targets.optional(),
      action: name.optional(),
      value: z.string().optional(),
      when: z.enum(['authenticated', 'anonymous']).optional(),
    })
    .strict();
  const node = z.discriminatedUnion(
    'type',
    [
      z
        .object({
          type: z.literal('menu'),
          title: text,
          options: z.array(option).min(1),
          back: back.optional(),
        })
        .strict(),
      z.object({ type: z.literal('info'), text, back: back.optional() }).strict(),
      z
        .object({
          type: z.literal('input'),
          prompt: text,
          validate: z.enum(VALIDATOR_NAMES).optional(),
          optional: z.boolean().default(false),
          secret: z.boolean().default(false),
          save: name.optional(),
          action: name.optional(),
          next: targets.optional(),
          back: back.optional(),
        })
        .strict(),
      z.object({ type: z.literal('action'), action: name, next: targets }).strict(),
      z.object({ type: z.literal('end'), text }).strict(),
    ],
    { errorMap: () => ({ message: 'type must be one of menu, info, input, action, end' }) },
  );
  return z
    .object({
      languages: LanguagesSection.optional(),
      placeholders: z
        .record(
          name,
          z.number({ invalid_type_error: 'give the longest length, a number' }).int().min(1).max(182),
        )
        .optional(),
      system: z
        .object({ goodbye: text, invalidChoice: text, back: text, more: text, exit: text, skip: text })
        .strict()
        .optional(),
      notices: z.record(name, text).optional(),
      nodes: z.record(name, node).optional(),
    })
    .strict();
}

/** The content of one menu file once validated. */
export type MenuFile = z.infer<ReturnType<typeof buildSchema>>;

/** Validates the content of one menu file against the schema, for the languages the menus declare. */
export function validateMenuFile(
  raw: unknown,
  languages: readonly string[],
): z.SafeParseReturnType<unknown, MenuFile> {
  return buildSchema(languages).safeParse(raw);
}
export type ParsedNode = NonNullable<MenuFile['nodes']>[string];
export type ParsedOption = Extract<ParsedNode, { type: 'menu' }>['options'][number];
export type Translated = Record<string, string>;
export type SystemTexts = NonNullable<MenuFile['system']>;
