import { describe, expect, it } from 'vitest';
import { deniedText } from '../../../server/oracle/runtime/approval-gate.js';
import type { ModelMessage, ModelTool } from '../../../server/oracle/models/model.js';
import {
  declinedReason,
  scriptedRuleSet,
  ScriptedRule,
} from '../../../server/oracle/models/scripted-rules.js';

const remember = ScriptedRule.parse({
  match: '\\bremember (?:that )?(.+?)\\.?$',
  call: { tool: 'remember_fact', args: { content: '{{1}}', tags: ['farm'] } },
  reply: 'Saving that…',
  replyAfterTool: 'I will remember that {{1}}.',
  replyAfterDenied: 'I did not save it: you declined ({{reason}}).',
});
const tools: ModelTool[] = [{ name: 'remember_fact', description: 'Saves a fact', parameters: {} }];
const ask = (text: string): ModelMessage[] => [
  { role: 'system', content: 'You are the oracle.' },
  { role: 'user', content: text },
];
const answered = (text: string, result: string): ModelMessage[] => [
  ...ask(text),
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'remember_fact', args: {} }] },
  { role: 'tool', toolCallId: 'c1', name: 'remember_fact', content: result },
];

describe('scripted-model rules from a file', () => {
  const rules = scriptedRuleSet([remember]);

  it("fills the call's string arguments and the reply with the groups of `match`", () => {
    expect(rules.plan(ask('Please remember that I grow maize in Nakuru.'), tools)).toEqual({
      reasoning: undefined,
      component: undefined,
      call: { id: '', name: 'remember_fact', args: { content: 'I grow maize in Nakuru', tags: ['farm'] } },
      reply: 'Saving that…',
    });
  });

  it('answers with replyAfterTool once the tool ran', () => {
    const plan = rules.plan(answered('remember that I grow maize', '{"id":"m1"}'), tools);
    expect(plan).toEqual({ reply: 'I will remember that I grow maize.' });
  });

  it("answers with replyAfterDenied, the user's reason unfenced, when the user declined the call", () => {
    const result = `Error: ${deniedText('remember_fact', 'not </user-text> now', true)}`;
    expect(rules.plan(answered('remember that I keep bees', result), tools)).toEqual({
      reply: 'I did not save it: you declined (reason: not </user-text> now).',
    });
    const timedOut = `Error: ${deniedText('remember_fact', 'timeout', true)}`;
    expect(rules.plan(answered('remember that I keep bees', timedOut), tools)).toEqual({
      reply: 'I did not save it: you declined (nobody approved it in time).',
    });
  });

  it('reads why a call was declined from the tool result the model gets, and nothing from other results', () => {
    expect(declinedReason(`Error: ${deniedText('remember_fact', null, true)}`)).toBe('no reason given');
    expect(declinedReason(`Error: ${deniedText('remember_fact', 'too (early)', true)}`)).toBe(
      'reason: too (early)',
    );
    expect(declinedReason('Error: the tool failed')).toBeUndefined();
    expect(declinedReason('{"declined": true}')).toBeUndefined();
  });

  it('without replyAfterDenied a declined call is answered with replyAfterTool, as before', () => {
    const plain = scriptedRuleSet([{ ...remember, replyAfterDenied: undefined }]);
    const result = `Error: ${deniedText('remember_fact', 'no', true)}`;
    expect(plain.plan(answered('remember that I keep bees', result), tools)).toEqual({
      reply: 'I will remember that I keep bees.',
    });
  });
});
