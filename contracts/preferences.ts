import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { OracleError } from './errors.js';
import type { OracleRouteMetadata } from './oracle.js';

const c = initContract();

/** Longest agent name, in characters. */
export const AGENT_NAME_MAX = 40;
/** Longest custom instructions, in characters (all of them together: new ones are added to the earlier ones). */
export const CUSTOM_INSTRUCTIONS_MAX = 2000;

/** An agent name: letters, digits, spaces and the marks of names (`.`, `'`, `’`, `-`); no other punctuation. */
const AGENT_NAME = /^[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N} .'’-]*$/u;

/**
 * A BCP 47 language tag: a 2-3 letter primary language, then optional script, region and variant subtags,
 * e.g. `sw`, `en-GB`, `zh-Hant-TW`.
 */
export const LanguageTag = z
  .string()
  .max(35)
  .regex(
    /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z0-9]{5,8}|\d[A-Za-z0-9]{3}))*$/,
    'language must be a BCP 47 tag such as sw, en or en-GB',
  );

/** How long answers should be. */
export const AnswerLength = z.enum(['short', 'medium', 'long']);
/** How answers should be laid out. */
export const AnswerFormat = z.enum(['plain', 'markdown', 'bullets']);
/** How formal the agent should be. */
export const Formality = z.enum(['casual', 'neutral', 'formal']);

/** The preference fields without their timestamp: what the tool `set_user_preferences` may set. */
export const PreferenceFields = {
  /** The voice of answers in a few words, e.g. `terse`, `warm and encouraging`. */
  tone: z.string().trim().min(1).max(80),
  length: AnswerLength,
  format: AnswerFormat,
  /** Reply language (BCP 47). */
  language: LanguageTag,
  /** What the user calls the agent; replaces the oracle's name in the prompt. */
  agentName: z
    .string()
    .trim()
    .min(1)
    .max(AGENT_NAME_MAX)
    .regex(AGENT_NAME, "an agent name is letters, digits, spaces and . ' - only"),
  formality: Formality,
  /**
   * Standing instructions in the user's words, e.g. "No emojis.", one per line. Setting it adds to the earlier
   * ones (a duplicate is dropped; past {@link CUSTOM_INSTRUCTIONS_MAX} characters the oldest go first); null
   * clears them all.
   */
  customInstructions: z.string().trim().min(1).max(CUSTOM_INSTRUCTIONS_MAX),
} as const;

/**
 * A user's behavioural preferences in one room (spec D1): the spec's topics (tone, length, format, language,
 * agent name) plus formality and custom instructions. Absent fields are unset.
 *
 * @example
 * { "language": "sw", "agentName": "Juma", "length": "short", "tone": "terse", "updatedAt": "2026-11-23T10:00:00.000Z" }
 */
export const UserPreferences = z
  .object({
    tone: PreferenceFields.tone.optional(),
    length: PreferenceFields.length.optional(),
    format: PreferenceFields.format.optional(),
    language: PreferenceFields.language.optional(),
    agentName: PreferenceFields.agentName.optional(),
    formality: PreferenceFields.formality.optional(),
    customInstructions: PreferenceFields.customInstructions.optional(),
    /** When the record last changed (ISO 8601). */
    updatedAt: z.string().datetime(),
  })
  .strict();
export type UserPreferences = z.infer<typeof UserPreferences>;

/**
 * Arguments of the tool `set_user_preferences`: a partial update. A field left out keeps its value; a field
 * set to `null` clears it; `customInstructions` is added to the earlier instructions.
 */
export const SetUserPreferencesArgs = z
  .object({
    tone: PreferenceFields.tone.nullable().optional(),
    length: PreferenceFields.length.nullable().optional(),
    format: PreferenceFields.format.nullable().optional(),
    language: PreferenceFields.language.nullable().optional(),
    agentName: PreferenceFields.agentName.nullable().optional(),
    formality: PreferenceFields.formality.nullable().optional(),
    customInstructions: PreferenceFields.customInstructions.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'set at least one preference (null clears one)');
export type SetUserPreferencesArgs = z.infer<typeof SetUserPreferencesArgs>;

/** User-preferences plugin routes (spec D, `UserPreferencesHttpModule`). */
export const preferencesContract = c.router(
  {
    get: {
      method: 'GET',
      path: '/user-preferences',
      summary: "The calling user's preferences in this room, or null when none are set",
      description:
        "Without `roomId`: the (user, oracle) pair's own room, which is its user's alone. With `roomId`: a room " +
        'the caller owns or is a member of; any other room answers 404 `room_not_found`, as an unknown one does.',
      metadata: { auth: 'ucan' } satisfies OracleRouteMetadata,
      query: z.object({
        /** A shared room of the caller; the (user, oracle) pair's own room when absent. */
        roomId: z.string().min(1).max(255).optional(),
      }),
      responses: {
        200: UserPreferences.nullable(),
        400: OracleError,
        401: OracleError,
        404: OracleError,
        503: OracleError,
      },
    },
  },
  { strictStatusCodes: true },
);
