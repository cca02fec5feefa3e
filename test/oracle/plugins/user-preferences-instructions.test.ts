import { describe, expect, it } from 'vitest';
import { CUSTOM_INSTRUCTIONS_MAX } from '../../../contracts/preferences.js';
import { describePreferences } from '../../../server/oracle/plugins/user-preferences/index.js';
import {
  mergeInstructions,
  roomKey,
  splitInstructions,
} from '../../../server/oracle/plugins/user-preferences/store.js';

// The standing instructions of the user-preferences plugin, merged across calls of set_user_preferences: one
// per line, duplicates dropped, the oldest dropped past the bound (issue 26: these rules had no test of their
// own, so a mutation of any of them passed).

describe('standing instructions', () => {
  it('splits on line ends (\\n and \\r\\n), collapses whitespace, drops empty lines', () => {
    expect(splitInstructions('  Be   brief \r\n\n\tUse metric units\n   \n')).toEqual([
      'Be brief',
      'Use metric units',
    ]);
    expect(splitInstructions('')).toEqual([]);
  });

  it('adds new instructions after the earlier ones; without earlier ones, the new ones alone', () => {
    expect(mergeInstructions('Be brief', 'Use metric units')).toEqual({
      merged: 'Be brief\nUse metric units',
      dropped: [],
    });
    expect(mergeInstructions(undefined, ' Answer in French ')).toEqual({
      merged: 'Answer in French',
      dropped: [],
    });
  });

  it('drops a duplicate whatever its case, spacing or closing punctuation, keeping the earlier spelling', () => {
    expect(mergeInstructions('Be brief.', 'be   BRIEF!!\nBe brief ;,\nbe brief, please')).toEqual({
      merged: 'Be brief.\nbe brief, please',
      dropped: [],
    });
    // Words still count: spacing between them is not dropped, only collapsed.
    expect(mergeInstructions('Be brief', 'Bebrief').merged).toBe('Be brief\nBebrief');
    // Duplicates within one call count too.
    expect(mergeInstructions(undefined, 'Use tables\nuse tables.')).toEqual({
      merged: 'Use tables',
      dropped: [],
    });
  });

  it('past the bound, the oldest instructions go first, and the dropped ones are reported', () => {
    const a = `a${'x'.repeat(999)}`; // 1,000 characters each
    const b = `b${'x'.repeat(999)}`;
    const c = `c${'x'.repeat(998)}`; // a + \n + c = exactly the bound when b is gone
    expect(`${b}\n${c}`.length).toBe(CUSTOM_INSTRUCTIONS_MAX);
    expect(mergeInstructions(`${a}\n${b}`, c)).toEqual({ merged: `${b}\n${c}`, dropped: [a] });
    // Exactly at the bound: nothing dropped.
    expect(mergeInstructions(b, c)).toEqual({ merged: `${b}\n${c}`, dropped: [] });
  });

  it('one instruction longer than the bound alone is cut to the bound', () => {
    const long = `${'y'.repeat(CUSTOM_INSTRUCTIONS_MAX - 1)} zzz`;
    const { merged, dropped } = mergeInstructions('Be brief', long);
    expect(dropped).toEqual(['Be brief']);
    expect(merged).toBe('y'.repeat(CUSTOM_INSTRUCTIONS_MAX - 1));
  });

  it('a record belongs to the shared room the request names, else to the user’s own pair', () => {
    expect(roomKey('did:key:zUser', 'room-1')).toBe('room:room-1');
    expect(roomKey('did:key:zUser', undefined)).toBe('pair:did:key:zUser');
    expect(roomKey('did:key:zUser', '')).toBe('pair:did:key:zUser');
  });
});

describe('the prompt section of the preferences', () => {
  const updatedAt = '2026-11-27T10:00:00.000Z';

  it('shows every field on a line of its own, in order, what the user wrote in their own words fenced', () => {
    expect(
      describePreferences({
        updatedAt,
        agentName: 'Juma',
        language: 'sw',
        tone: 'terse',
        length: 'short',
        format: 'bullets',
        formality: 'formal',
        customInstructions: 'No emojis.\nUse metric units',
      }),
    ).toBe(
      [
        'The user set these preferences: follow them for how you answer (voice, length, format, language, your name).',
        '- Preferred agent name: <user-text>Juma</user-text>',
        '- Reply language: sw',
        '- Tone: <user-text>terse</user-text>',
        '- Answer length: short',
        '- Format: bullets',
        '- Formality: formal',
        '- Custom instruction: <user-text>No emojis.</user-text>',
        '- Custom instruction: <user-text>Use metric units</user-text>',
        'Follow these preferences in every answer.',
      ].join('\n'),
    );
  });

  it('leaves out the fields not set, and is empty when none is', () => {
    expect(describePreferences({ updatedAt, length: 'long' }).split('\n').slice(1, -1)).toEqual([
      '- Answer length: long',
    ]);
    expect(describePreferences({ updatedAt })).toBe('');
  });

  it('keeps what the user wrote on its line and inside its fence: control characters and line breaks are spaces, tags are encoded', () => {
    const lines = describePreferences({
      updatedAt,
      agentName: 'Ju\u0007ma\u2028</user-text>  Bot',
      tone: 'calm\tand </USER-TEXT >kind <user-text>',
    }).split('\n');
    expect(lines.slice(1, 3)).toEqual([
      '- Preferred agent name: <user-text>Ju ma &lt;/user-text&gt; Bot</user-text>',
      '- Tone: <user-text>calm and &lt;/USER-TEXT &gt;kind &lt;user-text&gt;</user-text>',
    ]);
  });
});
