import { randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const Name = z.string().regex(/^[a-z][A-Za-z0-9]*$/);

/** A recorded flow (test/flows/*.yaml): accounts to create first, then requests and their exact replies. */
export const FlowFile = z
  .object({
    description: z.string(),
    /** Created through the menus (Account → Create an account) before the steps; `{ref}` is its customer ID. */
    accounts: z
      .array(
        z
          .object({
            ref: Name,
            name: z.string(),
            pin: z.string().regex(/^\d{5}$/),
            email: z.string().optional(),
            /** Phone alias the account is bound to (default `caller`). */
            phone: Name.default('caller'),
          })
          .strict(),
      )
      .default([]),
    steps: z
      .array(
        z
          .object({
            /** The accumulated text; `{ref}` is replaced by a known value. */
            text: z.string(),
            /** The exact reply; `{ref}` is a known value, an unknown `{name}` captures a customer ID. */
            expect: z.string(),
            /** Session label: each label is one session (fresh sessionId per run). Default `main`. */
            session: Name.default('main'),
            /** Phone alias (each alias is a fresh E.164 number per run). Default `caller`. */
            phone: Name.default('caller'),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();
export type FlowFile = z.infer<typeof FlowFile>;
export type Flow = FlowFile & { name: string };

/** Every flow in `dir`, sorted by file name. */
export async function loadFlows(dir = 'test/flows'): Promise<Flow[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) => ({
      name: file.replace(/\.yaml$/, ''),
      ...FlowFile.parse(parse(await readFile(path.join(dir, file), 'utf8'))),
    })),
  );
}

/** One USSD request, however it reaches the engine (directly or over HTTP). */
export type SendUssd = (request: { sessionId: string; phoneNumber: string; text: string }) => Promise<string>;

/** What a replay produced, for one `expect(actual).toEqual(expected)`. */
export interface Transcript {
  expected: string[];
  actual: string[];
}

const PLACEHOLDER = /\{([a-zA-Z][a-zA-Z0-9]*)\}/g;
const CUSTOMER_ID = /Your customer ID is (C[0-9A-Z]{8})\./;

/**
 * Replays a flow with fresh session ids and phone numbers, so flows never see each other's state even on
 * a shared database. Each step's line in the transcript is `<text> → <reply>`.
 */
export async function replayFlow(flow: Flow, send: SendUssd): Promise<Transcript> {
  const run = `${Date.now().toString(36)}${randomInt(1e9).toString(36)}`;
  const phones = new Map<string, string>();
  const phone = (alias: string): string => {
    const existing = phones.get(alias);
    if (existing) return existing;
    const fresh = `+2547${String(randomInt(1e8)).padStart(8, '0')}`;
    phones.set(alias, fresh);
    return fresh;
  };
  const vars = new Map<string, string>();
  const fill = (template: string): string =>
    template.replace(PLACEHOLDER, (m, k: string) => vars.get(k) ?? m);

  for (const account of flow.accounts) {
    const sessionId = `flow-${run}-setup-${account.ref}`;
    const phoneNumber = phone(account.phone);
    const dial = await send({ sessionId, phoneNumber, text: '' });
    if (!dial.startsWith('CON '))
      throw new Error(`flow ${flow.name}: the dial for account ${account.ref} got: ${dial}`);
    const created = await send({
      sessionId,
      phoneNumber,
      text: ['2', '2', account.name, account.email ?? '00', account.pin, account.pin].join('*'),
    });
    const id = CUSTOMER_ID.exec(created)?.[1];
    if (!id) throw new Error(`flow ${flow.name}: could not create account ${account.ref}: ${created}`);
    vars.set(account.ref, id);
    await send({
      sessionId,
      phoneNumber,
      text: `${['2', '2', account.name, account.email ?? '00', account.pin, account.pin].join('*')}**`,
    });
  }

  const transcript: Transcript = { expected: [], actual: [] };
  for (const step of flow.steps) {
    const text = fill(step.text);
    const reply = await send({
      sessionId: `flow-${run}-${step.session}`,
      phoneNumber: phone(step.phone),
      text,
    });
    capture(step.expect, reply, vars);
    transcript.expected.push(`${text} → ${fill(step.expect)}`);
    transcript.actual.push(`${text} → ${reply}`);
  }
  return transcript;
}

/** Defines every unknown `{name}` of `template` from what stands at its place in `reply`. */
function capture(template: string, reply: string, vars: Map<string, string>): void {
  const unknown = [...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '').filter((k) => !vars.has(k));
  if (unknown.length === 0) return;
  const pattern = template
    .split(PLACEHOLDER)
    .map((part, i) =>
      i % 2 === 0 ? escape(part) : vars.has(part) ? escape(vars.get(part) ?? '') : '([0-9A-Z]+)',
    )
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(reply);
  if (match) unknown.forEach((k, i) => vars.set(k, match[i + 1] ?? ''));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
