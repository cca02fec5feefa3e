import { z } from 'zod';

/** Longest `0. Back` history kept. */
const MAX_HISTORY = 100;

const Params = z.record(z.string(), z.string());

/**
 * What the engine keeps in `UssdSession.data`, as JSON (the store may be Redis). Checked when a session is
 * loaded (by {@link readEngineData}, which accepts exactly what this schema accepts): a session written by an
 * older version that does not fit is started afresh.
 */
export const EngineData = z.object({
  /** Format version of this object. */
  v: z.literal(1),
  /** Language of the screens. */
  lang: z.string(),
  /** Page of the current screen (0-based). */
  page: z.number().int().min(0),
  /** Placeholder values of the current screen. */
  params: Params,
  /** Screens `0. Back` returns to, oldest first. */
  history: z.array(z.object({ node: z.string(), params: Params })).max(MAX_HISTORY),
  /** Answers inputs saved (`save:`), for actions and later screens (cleared at the top menu). */
  form: Params,
  /** Salted hashes of secret inputs waiting for confirmation (cleared on every menu). */
  secrets: Params,
  /** The logged-in customer. */
  customerId: z.string().optional(),
});
export type EngineData = z.infer<typeof EngineData>;

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A fresh copy of a record of strings, or undefined when it is not one. */
function readParams(value: unknown): Record<string, string> | undefined {
  if (!isFields(value)) return undefined;
  const copy: Record<string, string> = {};
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (typeof item !== 'string') return undefined;
    // A JSON `__proto__` key would set the copy's prototype; like the schema, leave it out.
    if (key !== '__proto__') copy[key] = item;
  }
  return copy;
}

/**
 * `EngineData.safeParse(value)`, by hand: this runs on every request of a live session, and the schema's
 * generic walk cost more than the rest of the step. Returns a fresh copy (the engine changes the history
 * and form in place; the stored value must stay as it was) without unknown keys (nor a `customerId` that
 * is present but undefined, which JSON never holds), or undefined when the value does not fit.
 * test/ussd/engine/session-data.test.ts holds it to the schema on generated values.
 */
export function readEngineData(value: unknown): EngineData | undefined {
  if (!isFields(value) || value['v'] !== 1) return undefined;
  const { lang, page, customerId } = value;
  if (typeof lang !== 'string' || typeof page !== 'number' || !Number.isInteger(page) || page < 0) {
    return undefined;
  }
  if (customerId !== undefined && typeof customerId !== 'string') return undefined;
  const params = readParams(value['params']);
  const form = readParams(value['form']);
  const secrets = readParams(value['secrets']);
  const stored = value['history'];
  if (!params || !form || !secrets || !Array.isArray(stored) || stored.length > MAX_HISTORY) return undefined;
  const history: EngineData['history'] = [];
  for (const entry of stored as unknown[]) {
    if (!isFields(entry) || typeof entry['node'] !== 'string') return undefined;
    const entryParams = readParams(entry['params']);
    if (!entryParams) return undefined;
    history.push({ node: entry['node'], params: entryParams });
  }
  return engineData({ v: 1, lang, page, params, history, form, secrets, customerId });
}

/** The fields of `source` that are stored as engine data, and no others. */
export function engineData(source: EngineData): EngineData {
  const { v, lang, page, params, history, form, secrets, customerId } = source;
  return {
    v,
    lang,
    page,
    params,
    history,
    form,
    secrets,
    ...(customerId === undefined ? {} : { customerId }),
  };
}
