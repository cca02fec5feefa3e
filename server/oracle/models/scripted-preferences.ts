/**
 * How the scripted model treats user preferences (spec part D's use rules), deterministically:
 * 1. a standing request about how it should behave ("always…", "from now on…", "call yourself…") with a
 *    language, a name, a tone, a length, a format, a formality or "no emojis" → `set_user_preferences`;
 * 2. facts about who the user is ("I'm Amina, a nurse") → nothing saved;
 * 3. a one-off formatting request ("answer this one as bullet points") → that answer adapts, nothing saved.
 * It also reads the preferences the prompt carries, so its answers follow them.
 */

import { unfence } from './prompt-fence.js';

/** Language names the scripted model understands, with their BCP 47 tags. */
const LANGUAGES: Record<string, string> = {
  kiswahili: 'sw',
  swahili: 'sw',
  english: 'en',
  french: 'fr',
  spanish: 'es',
  german: 'de',
  portuguese: 'pt',
  arabic: 'ar',
  amharic: 'am',
  yoruba: 'yo',
  hausa: 'ha',
  zulu: 'zu',
};

const STANDING =
  /\b(always|from now on|in future|going forward|every time|each time|call yourself|your name is|i(?:'ll| will) call you|never|stop using)\b/i;
const ONE_OFF =
  /\b(this (?:one|time|answer|reply)|for this (?:answer|question|one|reply)|just (?:this|now)|only this|right now)\b/i;

/** The fields of `set_user_preferences` a message asks to set, or undefined when it is not a standing request. */
export function standingPreferences(message: string): Record<string, string> | undefined {
  if (!STANDING.test(message) || ONE_OFF.test(message)) return undefined;
  const fields: Record<string, string> = {};
  const language = /\b(?:in|speak|reply in|answer in|respond in|write in)\s+(\w+)/gi;
  for (const m of message.matchAll(language)) {
    const tag = LANGUAGES[(m[1] ?? '').toLowerCase()];
    if (tag) fields['language'] = tag;
  }
  const name =
    /\b(?:call yourself|your name is|i(?:'ll| will) call you|be called)\s+([A-Z][\p{L}'-]{1,40})/u.exec(
      message,
    );
  if (name?.[1]) fields['agentName'] = name[1];
  if (/\b(terse(?:ly)?|brief(?:ly)?|concise(?:ly)?|short (?:answers?|replies))\b/i.test(message)) {
    fields['tone'] = 'terse';
    fields['length'] = 'short';
  } else if (/\b(warm(?:ly)?|friendly)\b/i.test(message)) {
    fields['tone'] = 'warm';
  }
  if (/\b(?:in )?detail(?:ed)?\b|\blong(?:er)? (?:answers?|replies)\b/i.test(message))
    fields['length'] = 'long';
  if (/\bformal(?:ly)?\b/i.test(message)) fields['formality'] = 'formal';
  else if (/\bcasual(?:ly)?\b/i.test(message)) fields['formality'] = 'casual';
  if (/\bbullet(?:s| points)\b/i.test(message)) fields['format'] = 'bullets';
  else if (/\bplain text\b/i.test(message)) fields['format'] = 'plain';
  else if (/\bmarkdown\b/i.test(message)) fields['format'] = 'markdown';
  if (/\b(?:no|without|don'?t use|never use|stop using) emojis?\b/i.test(message))
    fields['customInstructions'] = 'No emojis.';
  return Object.keys(fields).length ? fields : undefined;
}

/** The preferences a system prompt carries (its "User Preferences" section, as the plugin writes it). */
export interface PromptPreferences {
  language?: string;
  tone?: string;
  length?: string;
  format?: string;
}

export function preferencesInPrompt(system: string): PromptPreferences {
  const section = /## User Preferences\n([\s\S]*?)(?:\n## |$)/.exec(system)?.[1] ?? '';
  const read = (label: string): string | undefined => {
    const value = new RegExp(`^- ${label}: (.+)$`, 'm').exec(section)?.[1]?.trim();
    return value === undefined ? undefined : unfence(value);
  };
  const out: PromptPreferences = {};
  const language = read('Reply language');
  if (language) out.language = language;
  const tone = read('Tone');
  if (tone) out.tone = tone;
  const length = read('Answer length');
  if (length) out.length = length;
  const format = read('Format');
  if (format) out.format = format;
  return out;
}

/** A one-off format the message asks for (rule 3: adapt locally). */
export function oneOffFormat(message: string): 'bullets' | undefined {
  return ONE_OFF.test(message) && /\bbullet(?:s| points)\b/i.test(message) ? 'bullets' : undefined;
}

/** The scripted model's plain answer, in the preferred language and length. */
export function greeting(agentName: string, message: string, prefs: PromptPreferences): string {
  const terse = prefs.length === 'short' || prefs.tone === 'terse';
  if (prefs.language === 'sw') {
    return terse
      ? `Mimi ni ${agentName}. Umesema: "${message}".`
      : `Habari, mimi ni ${agentName}. Umesema: "${message}". Niombe hadithi ndefu, nifikiri hatua kwa hatua, au nitumie zana zako kwa jina lake.`;
  }
  return terse
    ? `I am ${agentName}. You said: "${message}".`
    : `Hello, I am ${agentName}. You said: "${message}". Ask me to write a long story, to think step by step, to show a component by its name, or to use one of your tools by its name.`;
}

/** The confirmation after saving, in the language just saved. */
export function savedConfirmation(record: Record<string, unknown>): string {
  const name = typeof record['agentName'] === 'string' ? record['agentName'] : undefined;
  if (record['language'] === 'sw') {
    return `Sawa, nimehifadhi mapendeleo yako${name ? `. Jina langu sasa ni ${name}` : ''}.`;
  }
  return `Done: I saved your preferences${name ? `. From now on my name is ${name}` : ''}.`;
}
