import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';

const Name = z.string().regex(/^[a-z][A-Za-z0-9]*$/, 'a camelCase name like jane');

/**
 * A recorded flow (test/flows/*.yaml; the format is in docs/menus.md): accounts that exist before the
 * flow starts, then requests and their exact replies. `{ref}` stands for a customer ID.
 */
export const FlowFile = z
  .object({
    description: z.string(),
    /** Accounts created (directly in the accounts, not through the menus) before the steps; `{ref}` is its customer ID. */
    accounts: z
      .array(
        z
          .object({
            ref: Name,
            name: z.string(),
            pin: z.string().regex(/^\d{5}$/),
            email: z.string().optional(),
            /** The account's language (default: the menus' default). */
            language: z.string().optional(),
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
export type FlowStep = FlowFile['steps'][number];
export type FlowAccount = FlowFile['accounts'][number];

/** A flow and where it is written. */
export type Flow = FlowFile & { name: string; file: string };

/** The flow in `file`; a file that does not fit the format throws, naming the file and the field. */
export async function loadFlow(file: string): Promise<Flow> {
  const parsed = FlowFile.safeParse(parse(await readFile(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'not a flow'}`);
  }
  return { name: path.basename(file).replace(/\.yaml$/, ''), file, ...parsed.data };
}

/** Every flow in `dir`, sorted by file name; `only` keeps those named (file name without .yaml). */
export async function loadFlows(dir = 'test/flows', only: readonly string[] = []): Promise<Flow[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const flows = await Promise.all(files.map((f) => loadFlow(path.join(dir, f))));
  const unknown = only.filter((n) => !flows.some((f) => f.name === n));
  if (unknown.length > 0) throw new Error(`no flow named ${unknown.join(', ')} in ${dir}`);
  return only.length === 0 ? flows : flows.filter((f) => only.includes(f.name));
}

/**
 * The YAML text of a flow, as the committed flows are written: defaults left out (`session: main`,
 * `phone: caller`), replies as literal blocks, strings single-quoted where YAML needs quotes.
 */
export function flowYaml(flow: FlowFile): string {
  const plain = {
    description: flow.description,
    ...(flow.accounts.length === 0
      ? {}
      : {
          accounts: flow.accounts.map(({ phone, ...a }) => ({
            ...a,
            ...(phone === 'caller' ? {} : { phone }),
          })),
        }),
    steps: flow.steps.map(({ session, phone, text, expect }) => ({
      ...(session === 'main' ? {} : { session }),
      ...(phone === 'caller' ? {} : { phone }),
      text,
      expect,
    })),
  };
  return stringify(plain, { singleQuote: true, lineWidth: 0, blockQuote: 'literal' });
}

/** Writes a flow file (see {@link flowYaml}). */
export async function writeFlow(file: string, flow: FlowFile): Promise<void> {
  await writeFile(file, flowYaml(flow));
}
