import { z } from 'zod';
import { unfence } from './prompt-fence.js';
import type { ModelMessage, ModelTool, ModelToolCall } from './model.js';
import {
  greeting,
  oneOffFormat,
  preferencesInPrompt,
  savedConfirmation,
  standingPreferences,
  type PromptPreferences,
} from './scripted-preferences.js';

/** What the scripted model decided to do for one completion. */
export interface ScriptedPlan {
  reasoning?: string | undefined;
  component?: { name: string; args: Record<string, unknown> } | undefined;
  call?: ModelToolCall | undefined;
  reply: string;
}

/**
 * One rule of the scripted model, as written in a rules file (YAML, `SCRIPTED_MODEL_RULES`). The first rule
 * whose `match` finds the user's last message decides the answer. Templates in `reply`, `replyAfterTool`,
 * `replyAfterDenied` and the string values of `call.args`: `{{message}}`, `{{agentName}}`, `{{toolName}}`,
 * `{{toolOutput}}`, `{{reason}}` (why the user declined the call) and `{{1}}`, `{{2}}`… (the groups of `match`).
 *
 * @example
 * - match: '\bweather\b'
 *   reasoning: Checking the weather card for the user.
 *   component: { name: WeatherCard, args: { city: Nairobi, celsius: 24 } }
 *   reply: Here is the weather in Nairobi.
 */
export const ScriptedRule = z
  .object({
    /** A regular expression, matched case-insensitively against the user's last message. */
    match: z.string().min(1),
    reasoning: z.string().optional(),
    component: z.object({ name: z.string().min(1), args: z.record(z.unknown()).default({}) }).optional(),
    /** A tool to call (one of the turn's tools); the answer follows its result. */
    call: z.object({ tool: z.string().min(1), args: z.record(z.unknown()).default({}) }).optional(),
    reply: z.string().optional(),
    replyAfterTool: z.string().optional(),
    /** The answer once the user declined the call (it needed their approval); else `replyAfterTool`. */
    replyAfterDenied: z.string().optional(),
  })
  .strict();
export type ScriptedRule = z.infer<typeof ScriptedRule>;

/** A rules file: a list of rules. */
export const ScriptedRulesFile = z.array(ScriptedRule);

interface Turn {
  message: string;
  agentName: string;
  /** The user's preferences the prompt carries. */
  preferences: PromptPreferences;
  tools: ModelTool[];
  /** Tool results returned since the user's message, oldest first. */
  results: { name: string; content: string }[];
}

interface CompiledRule {
  test(turn: Turn): boolean;
  plan(turn: Turn): ScriptedPlan;
}

/** The scripted model's rules: the given ones, then the built-in ones. */
export function scriptedRuleSet(fileRules: ScriptedRule[]): {
  plan(messages: ModelMessage[], tools: ModelTool[]): ScriptedPlan;
} {
  const rules: CompiledRule[] = [...fileRules.map(compileFileRule), ...BUILT_IN];
  return {
    plan(messages, tools) {
      const turn = readTurn(messages, tools);
      const rule = rules.find((r) => r.test(turn)) ?? FALLBACK;
      const decided = rule.plan(turn);
      // Once the tool has answered, the plan is the answer about it (no second call of the same tool).
      if (turn.results.length > 0) return { reply: decided.reply };
      return decided;
    },
  };
}

function readTurn(messages: ModelMessage[], tools: ModelTool[]): Turn {
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  const user = messages[lastUser];
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const results = messages
    .slice(lastUser + 1)
    .flatMap((m) => (m.role === 'tool' ? [{ name: m.name, content: m.content }] : []));
  return {
    message: user?.role === 'user' ? user.content : '',
    agentName: unfence(
      /^You are (<user-text>.*?<\/user-text>|.+?)(?:[,.]|$)/m.exec(system)?.[1]?.trim() ?? 'the oracle',
    ),
    preferences: preferencesInPrompt(system),
    tools,
    results,
  };
}

/** What a tool result says when its user declined the call: why, in the user's words where they gave some. */
const DECLINED = /^Error: The user declined to run \S+ \((.*)\)\. Do not call it again/s;

/** Why the user declined the call whose result is `content` ("reason: …", "no reason given"…), or undefined. */
export function declinedReason(content: string): string | undefined {
  const why = DECLINED.exec(content)?.[1];
  if (why === undefined) return undefined;
  const reason = /^reason: (.*)$/s.exec(why)?.[1];
  return reason === undefined ? why : `reason: ${unfence(reason)}`;
}

function fill(template: string, turn: Turn, extra: Record<string, string> = {}): string {
  const last = turn.results[turn.results.length - 1];
  const values: Record<string, string> = {
    message: turn.message,
    agentName: turn.agentName,
    toolName: last?.name ?? '',
    toolOutput: last?.content ?? '',
    reason: (last && declinedReason(last.content)) ?? '',
    ...extra,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

function afterTool(turn: Turn, template?: string, extra: Record<string, string> = {}): string {
  return turn.results.length > 0
    ? fill(template ?? 'The tool {{toolName}} returned: {{toolOutput}}', turn, extra)
    : '';
}

function compileFileRule(rule: ScriptedRule): CompiledRule {
  const pattern = new RegExp(rule.match, 'i');
  return {
    test: (turn) => pattern.test(turn.message),
    plan: (turn) => {
      const tool = rule.call && turn.tools.find((t) => t.name === rule.call?.tool);
      // The groups of `match`, as {{1}}, {{2}}…
      const groups: Record<string, string> = {};
      pattern.exec(turn.message)?.forEach((group, i) => {
        if (i > 0) groups[String(i)] = group ?? '';
      });
      const args = (values: Record<string, unknown>): Record<string, unknown> =>
        Object.fromEntries(
          Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? fill(v, turn, groups) : v]),
        );
      const last = turn.results[turn.results.length - 1];
      const denied = last !== undefined && declinedReason(last.content) !== undefined;
      const after = denied ? (rule.replyAfterDenied ?? rule.replyAfterTool) : rule.replyAfterTool;
      return {
        reasoning: rule.reasoning,
        component: rule.component,
        call: tool && rule.call ? { id: '', name: tool.name, args: args(rule.call.args) } : undefined,
        reply:
          afterTool(turn, after, groups) ||
          fill(rule.reply ?? (tool ? `Calling ${tool.name}.` : 'OK.'), turn, groups),
      };
    },
  };
}

/** "use / call / run <tool name> [with {json} | key=value …]" naming one of the turn's tools. */
const TOOL_REQUEST =
  /\b(?:use|call|run|invoke|trigger)\s+(?:the\s+)?(?:tool\s+|action\s+)?[`'"]?([A-Za-z0-9_-]{1,64})[`'"]?/gi;

/** Arguments written after the tool name: a JSON object, or `key=value` / `key: value` pairs. */
export function parseArgs(text: string): Record<string, unknown> {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // not JSON: read pairs below
    }
  }
  const args: Record<string, unknown> = {};
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*[=:]\s*("[^"]*"|'[^']*'|[^\s,;]+)/g)) {
    const [, key, raw] = m;
    if (!key || raw === undefined) continue;
    const unquoted = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    args[key] = /^-?\d+(?:\.\d+)?$/.test(unquoted)
      ? Number(unquoted)
      : unquoted === 'true'
        ? true
        : unquoted === 'false'
          ? false
          : unquoted;
  }
  return args;
}

const toolByName: CompiledRule = {
  test: (turn) => findToolRequest(turn) !== undefined,
  plan: (turn) => {
    const found = findToolRequest(turn);
    if (!found) return { reply: '' };
    return {
      call: { id: '', name: found.tool.name, args: parseArgs(found.rest) },
      reply: afterTool(turn) || `Calling ${found.tool.name}.`,
    };
  },
};

function findToolRequest(turn: Turn): { tool: ModelTool; rest: string } | undefined {
  for (const m of turn.message.matchAll(TOOL_REQUEST)) {
    const tool = turn.tools.find((t) => t.name === m[1]);
    if (tool) return { tool, rest: turn.message.slice((m.index ?? 0) + m[0].length) };
  }
  return undefined;
}

/** "show (me) (the|a) <ComponentName> (component|card) [with {json}]". */
const COMPONENT_REQUEST = /\bshow\s+(?:me\s+)?(?:the\s+|a\s+|an\s+)?([A-Z][A-Za-z0-9]{1,63})\b/;

const component: CompiledRule = {
  test: (turn) => COMPONENT_REQUEST.test(turn.message),
  plan: (turn) => {
    const match = COMPONENT_REQUEST.exec(turn.message);
    const name = match?.[1] ?? 'Component';
    return {
      component: {
        name,
        args: parseArgs(turn.message.slice((match?.index ?? 0) + (match?.[0].length ?? 0))),
      },
      reply: `Here is the ${name} component.`,
    };
  },
};

const SENTENCES = [
  'A USSD menu fits in 182 characters, so every word on the screen has to earn its place.',
  'The gateway answers each input with CON to keep the session open or END to close it.',
  'On the chain, an entity carries an IID document whose services tell clients where to reach it.',
  'An oracle is an agent with an identity of its own, and users grant it capabilities with signed tokens.',
  'A delegation says what the oracle may do for the user, and an invocation proves who is asking now.',
  'Streaming a reply word by word lets the reader start before the writer has finished.',
  'A durable run keeps its events for a while, so a client that lost its connection can pick up where it left off.',
  'Nothing is repeated and nothing is lost when the client asks for the events after the last one it saw.',
  'Preferences such as the reply language or the name of the agent belong to the room and outlast the session.',
  'Facts about who the user is belong to a separate memory, and one-off formatting requests are not saved at all.',
];

/** About `words` words of deterministic prose. */
export function longText(words: number): string {
  const out: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    const sentence = SENTENCES[i % SENTENCES.length] ?? '';
    out.push(sentence);
    count += sentence.split(' ').length;
    if (i % 4 === 3) out.push('\n\n');
  }
  return out.join(' ').replace(/ ?\n\n ?/g, '\n\n');
}

const long: CompiledRule = {
  test: (turn) => /\b(long|essay|story|everything|in detail|at length)\b/i.test(turn.message),
  plan: () => ({ reply: longText(400) }),
};

const thinking: CompiledRule = {
  test: (turn) => /\b(think|reason|step by step)\b/i.test(turn.message),
  plan: (turn) => ({
    reasoning: `The user asked: "${turn.message.slice(0, 200)}". I will answer in three short steps.`,
    reply: 'First, I read the question. Second, I consider what I know. Third, I answer: here is my reply.',
  }),
};

const FALLBACK: CompiledRule = {
  test: () => true,
  plan: (turn) => {
    const reply = greeting(turn.agentName, turn.message.slice(0, 500), turn.preferences);
    const bullets =
      oneOffFormat(turn.message) ?? (turn.preferences.format === 'bullets' ? 'bullets' : undefined);
    return {
      reply: bullets
        ? reply
            .split(/(?<=\.) /)
            .map((line) => `- ${line}`)
            .join('\n')
        : reply,
    };
  },
};

/** The name of the user-preferences plugin's tool (spec part D). */
const SET_PREFERENCES = 'set_user_preferences';

/** Rule 1 of spec part D: a standing request about behaviour is saved (rules 2 and 3 fall through). */
const preferences: CompiledRule = {
  test: (turn) =>
    turn.tools.some((t) => t.name === SET_PREFERENCES) && standingPreferences(turn.message) !== undefined,
  plan: (turn) => {
    const last = turn.results[turn.results.length - 1];
    if (last) {
      let record: Record<string, unknown> = {};
      try {
        record = JSON.parse(last.content) as Record<string, unknown>;
      } catch {
        return { reply: `I could not save that: ${last.content}` };
      }
      return { reply: savedConfirmation(record) };
    }
    return {
      call: { id: '', name: SET_PREFERENCES, args: standingPreferences(turn.message) ?? {} },
      reply: '',
    };
  },
};

const BUILT_IN: CompiledRule[] = [toolByName, preferences, component, long, thinking];
