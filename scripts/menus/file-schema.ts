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

/** The fields each kind of node (and an option) may have: what an unknown field is compared with. */
export const NODE_FIELDS = {
  menu: ['type', 'title', 'options', 'back'],
  info: ['type', 'text', 'back'],
  input: [
    'type',
    'prompt',
    'validate',
    'maxLength',
    'pattern',
    'patternNotice',
    'optional',
    'secret',
    'save',
    'action',
    'next',
    'back',
  ],
  action: ['type', 'action', 'next'],
  end: ['type', 'text'],
  option: ['key', 'label', 'next', 'action', 'value', 'when'],
  file: ['languages', 'placeholders', 'system', 'notices', 'actions', 'nodes'],
  actionDeclaration: ['sets'],
} as const;

/** The node types, as `type:` names them. */
export const NODE_TYPES = ['menu', 'info', 'input', 'action', 'end'] as const;

/** The longest answer a `validate: text` input may allow (a reply's text is at most 182 characters). */
export const TEXT_MAX_LENGTH = 160;

function buildNodeSchema(languages: readonly string[]) {
  const text = translated(languages);
  const targets = z.union([name, z.array(name).min(1, 'name at least one node')], {
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
  return z.discriminatedUnion(
    'type',
    [
      z
        .object({
          type: z.literal('menu'),
          title: text,
          options: z.array(option).min(1, 'a menu needs at least one option'),
          back: back.optional(),
        })
        .strict(),
      z.object({ type: z.literal('info'), text, back: back.optional() }).strict(),
      z
        .object({
          type: z.literal('input'),
          prompt: text,
          validate: z.enum(VALIDATOR_NAMES).optional(),
          maxLength: z
            .number({ invalid_type_error: `a number of characters, from 1 to ${TEXT_MAX_LENGTH}` })
            .int(`a whole number of characters, from 1 to ${TEXT_MAX_LENGTH}`)
            .min(1, `at least 1 character (from 1 to ${TEXT_MAX_LENGTH})`)
            .max(TEXT_MAX_LENGTH, `at most ${TEXT_MAX_LENGTH} characters (from 1 to ${TEXT_MAX_LENGTH})`)
            .optional(),
          pattern: z
            .string({ invalid_type_error: "a regular expression in quotes, like '[A-Za-z ]+'" })
            .optional(),
          patternNotice: name.optional(),
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
    { errorMap: () => ({ message: `type must be one of ${NODE_TYPES.join(', ')}` }) },
  );
}

function buildSchema(languages: readonly string[]) {
  const text = translated(languages);
  return {
    /** The file's sections; each node and notice is checked on its own (so one bad node hides no other). */
    file: z
      .object({
        languages: LanguagesSection.optional(),
        placeholders: z
          .record(
            name,
            z
              .number({ invalid_type_error: 'give the longest length, a number from 1 to 182' })
              .int('a whole number of characters, from 1 to 182')
              .min(1, 'at least 1 character (from 1 to 182)')
              .max(182, 'at most 182 characters, the length of a whole reply (from 1 to 182)'),
          )
          .optional(),
        actions: z
          .record(
            name,
            z
              .object({
                sets: z.array(name, { invalid_type_error: 'a list of placeholders, like [name, email]' }),
              })
              .strict(),
          )
          .optional(),
        system: z
          .object({ goodbye: text, invalidChoice: text, back: text, more: text, exit: text, skip: text })
          .strict()
          .optional(),
        notices: z.record(name, z.unknown()).optional(),
        nodes: z.record(name, z.unknown()).optional(),
      })
      .strict(),
    notice: text,
    node: buildNodeSchema(languages),
  };
}

/** The sections of one menu file once validated; its notices and nodes are validated one by one. */
export type MenuFile = z.infer<ReturnType<typeof buildSchema>['file']>;
export type ParsedNode = z.infer<ReturnType<typeof buildNodeSchema>>;

/** The validators of a file, its notices and its nodes, for the languages the menus declare. */
export interface MenuSchemas {
  file(raw: unknown): z.SafeParseReturnType<unknown, MenuFile>;
  notice(raw: unknown): z.SafeParseReturnType<unknown, Translated>;
  node(raw: unknown): z.SafeParseReturnType<unknown, ParsedNode>;
}

export function menuSchemas(languages: readonly string[]): MenuSchemas {
  const schema = buildSchema(languages);
  return {
    file: (raw) => schema.file.safeParse(raw),
    notice: (raw) => schema.notice.safeParse(raw),
    node: (raw) => schema.node.safeParse(raw),
  };
}
export type ParsedOption = Extract<ParsedNode, { type: 'menu' }>['options'][number];
export type Translated = Record<string, string>;
export type SystemTexts = NonNullable<MenuFile['system']>;
export type ActionDeclaration = NonNullable<MenuFile['actions']>[string];
