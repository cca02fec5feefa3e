// The message-content helpers: how text deltas, components and history records become a message's content.
import { describe, expect, it } from 'vitest';
import type { MessageDto } from '../../../contracts/oracle.js';
import { appendText, fromDto, hasPart, replaceText, textOf, upsertPart } from '../../src/chat/content.js';
import type { IComponentMetadata } from '../../src/types.js';

const chart = (id: string, values: number[] = [1]): IComponentMetadata => ({
  name: 'Chart',
  props: { id, args: { values } },
});

describe('textOf', () => {
  it('joins the string parts, skipping components', () => {
    expect(textOf('hello')).toBe('hello');
    expect(textOf('')).toBe('');
    expect(textOf(chart('c1'))).toBe('');
    expect(textOf(['a', chart('c1'), 'b'])).toBe('ab');
  });
});

describe('appendText', () => {
  it('appends to a plain string', () => {
    expect(appendText('Hel', 'lo')).toBe('Hello');
    expect(appendText('', 'Hi')).toBe('Hi');
  });

  it('appends to the leading text of a list, keeping the parts after it in order', () => {
    const c = chart('c1');
    expect(appendText(['Hel', c], 'lo')).toEqual(['Hello', c]);
  });

  it('puts the text first when the content has only components', () => {
    const c = chart('c1');
    expect(appendText(c, 'Hi')).toEqual(['Hi', c]);
    expect(appendText([c], 'Hi')).toEqual(['Hi', c]);
  });

  it('an empty delta on components leaves them as they were (no empty text part)', () => {
    const c = chart('c1');
    expect(appendText([c], '')).toEqual([c]);
  });

  it('a list that ends up one string is packed to the string', () => {
    expect(appendText(['Hel'], 'lo')).toBe('Hello');
  });
});

describe('replaceText', () => {
  it('replaces the text and keeps the components after it', () => {
    const c = chart('c1');
    expect(replaceText(['old', c, 'more'], 'new')).toEqual(['new', c]);
    expect(replaceText('old', 'new')).toBe('new');
  });

  it('an empty text leaves the components only, or the empty string', () => {
    const c = chart('c1');
    expect(replaceText(['old', c], '')).toEqual([c]);
    expect(replaceText('old', '')).toBe('');
  });
});

describe('upsertPart and hasPart', () => {
  it('adds a part after the others when its id is new (the update sees undefined)', () => {
    const seen: (IComponentMetadata | undefined)[] = [];
    const c2 = chart('c2');
    const next = upsertPart(['text', chart('c1')], 'c2', (old) => {
      seen.push(old);
      return c2;
    });
    expect(seen).toEqual([undefined]);
    expect(next).toEqual(['text', chart('c1'), c2]);
    expect(upsertPart('', 'c2', () => c2)).toEqual([c2]);
  });

  it('updates the part with the same id in place, without touching the original content', () => {
    const original = ['text', chart('c1', [1]), chart('c2', [2])];
    const next = upsertPart(original, 'c1', (old) => ({
      ...(old as IComponentMetadata),
      props: { ...(old as IComponentMetadata).props, status: 'done' },
    }));
    expect(next).toEqual([
      'text',
      { name: 'Chart', props: { id: 'c1', args: { values: [1] }, status: 'done' } },
      chart('c2', [2]),
    ]);
    expect(original[1]).toEqual(chart('c1', [1]));
  });

  it('hasPart finds a component by id, never a text part', () => {
    expect(hasPart(['c1', chart('c2')], 'c2')).toBe(true);
    expect(hasPart(['c1', chart('c2')], 'c1')).toBe(false);
    expect(hasPart(chart('c3'), 'c3')).toBe(true);
    expect(hasPart('', 'c3')).toBe(false);
  });
});

describe('fromDto (a history message)', () => {
  const base: MessageDto = { id: 'r1', type: 'ai', content: 'Answer' };

  it('a text-only message is its text, complete, with no optional fields', () => {
    expect(fromDto(base)).toStrictEqual({ id: 'r1', type: 'ai', content: 'Answer', isComplete: true });
    expect(fromDto({ ...base, type: 'human', content: '' })).toStrictEqual({
      id: 'r1',
      type: 'human',
      content: '',
      isComplete: true,
    });
  });

  it('each stored call becomes a part after the text, by kind', () => {
    const toolCalls: MessageDto['toolCalls'] = [
      { id: 't1', name: 'add_numbers', kind: 'tool', args: { a: 1 }, status: 'done', output: '2' },
      { id: 't2', name: 'get_location', kind: 'browser_tool', args: {}, status: 'error', error: 'denied' },
      { id: 't3', name: 'legacy', args: {} },
      { id: 'a1', name: 'set_theme', kind: 'action', args: { theme: 'dark' } },
      { id: 'k1', name: 'Chart', kind: 'component', args: { values: [1] }, status: 'isRunning' },
    ];
    const m = fromDto({
      ...base,
      toolCalls,
      reasoning: 'thought',
      runStatus: 'aborted',
      createdAt: '2026-11-28T00:00:00.000Z',
    });
    expect(m.content).toEqual([
      'Answer',
      {
        name: 'add_numbers',
        props: {
          id: 't1',
          args: { a: 1 },
          status: 'done',
          output: '2',
          toolName: 'add_numbers',
          kind: 'tool',
          isToolCall: true,
        },
      },
      {
        name: 'get_location',
        props: {
          id: 't2',
          args: {},
          status: 'error',
          error: 'denied',
          toolName: 'get_location',
          kind: 'browser_tool',
          isToolCall: true,
        },
      },
      {
        name: 'legacy',
        props: { id: 't3', args: {}, status: 'done', toolName: 'legacy', kind: 'tool', isToolCall: true },
      },
      {
        name: 'set_theme',
        props: {
          id: 'a1',
          args: { theme: 'dark' },
          status: 'done',
          toolName: 'set_theme',
          kind: 'action',
          isAgAction: true,
        },
      },
      { name: 'Chart', props: { id: 'k1', args: { values: [1] }, status: 'isRunning', kind: 'component' } },
    ]);
    // No `output` / `error` keys where the call had none.
    const parts = m.content as IComponentMetadata[];
    expect(Object.keys(parts[3]?.props ?? {})).not.toContain('output');
    expect(Object.keys(parts[3]?.props ?? {})).not.toContain('error');
    expect(m.toolCalls).toBe(toolCalls);
    expect(m.reasoning).toBe('thought');
    expect(m.runStatus).toBe('aborted');
    expect(m.createdAt).toBe('2026-11-28T00:00:00.000Z');
    expect(m.isComplete).toBe(true);
  });

  it('calls without text: the parts alone; one call alone stays a list', () => {
    const call = { id: 'k1', name: 'Chart', kind: 'component' as const, args: {} };
    expect(fromDto({ ...base, content: '', toolCalls: [call] }).content).toEqual([
      { name: 'Chart', props: { id: 'k1', args: {}, status: 'done', kind: 'component' } },
    ]);
  });

  it('empty reasoning is left out', () => {
    expect('reasoning' in fromDto({ ...base, reasoning: '' })).toBe(false);
  });

  it("the answer of a run that waits for approval is not complete, and its waiting call's part names the session and the turn", () => {
    const done = { id: 'c1', name: 'recall_facts', kind: 'tool' as const, args: {}, status: 'done' as const };
    const waiting = {
      id: 'c2',
      name: 'remember_fact',
      kind: 'tool' as const,
      args: { content: 'Keeps bees' },
      status: 'awaiting_approval' as const,
      expiresAt: '2026-11-29T04:00:00.000Z',
    };
    const m = fromDto({ ...base, toolCalls: [done, waiting] }, 's1');
    expect(m.isComplete).toBe(false);
    expect(m.content).toEqual([
      'Answer',
      {
        name: 'recall_facts',
        props: {
          id: 'c1',
          args: {},
          status: 'done',
          toolName: 'recall_facts',
          kind: 'tool',
          isToolCall: true,
        },
      },
      {
        name: 'remember_fact',
        props: {
          id: 'c2',
          args: { content: 'Keeps bees' },
          status: 'awaiting_approval',
          sessionId: 's1',
          requestId: 'r1',
          toolName: 'remember_fact',
          kind: 'tool',
          isToolCall: true,
        },
      },
    ]);
    // Without a session (a caller that has none to give) the part is as stored.
    const [, , part] = fromDto({ ...base, toolCalls: [done, waiting] }).content as unknown[];
    expect(part).not.toHaveProperty('props.sessionId');
  });
});
