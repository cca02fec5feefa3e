import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EngineData, readEngineData } from '../../../server/ussd/engine/session-data.js';

// readEngineData is the hand-written reader of stored engine data (it runs on every request of a live
// session). It must accept exactly what the EngineData schema accepts and return what the schema returns.

const strings = fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 4 });
const valid = fc.record(
  {
    v: fc.constant(1),
    lang: fc.string({ maxLength: 3 }),
    page: fc.nat(),
    params: strings,
    history: fc.array(fc.record({ node: fc.string({ maxLength: 8 }), params: strings }), { maxLength: 102 }),
    form: strings,
    secrets: strings,
    customerId: fc.string({ maxLength: 10 }),
    extra: fc.anything(),
  },
  { requiredKeys: ['v', 'lang', 'page', 'params', 'history', 'form', 'secrets'] },
);
const fields = ['v', 'lang', 'page', 'params', 'history', 'form', 'secrets', 'customerId'] as const;
/** Valid data with one field replaced by anything, or one history entry spoiled. */
const spoiled = fc.oneof(
  fc
    .tuple(valid, fc.constantFrom(...fields), fc.anything())
    .map(([data, field, value]) => ({ ...data, [field]: value })),
  fc.tuple(valid, fc.anything()).map(([data, entry]) => ({ ...data, history: [...data.history, entry] })),
  fc
    .tuple(valid, fc.constantFrom(-1, 0.5, NaN, Infinity, -0, 2 ** 53))
    .map(([data, page]) => ({ ...data, page })),
);

function expectSameAsSchema(value: unknown): void {
  const schema = EngineData.safeParse(value);
  const read = readEngineData(value);
  expect(read === undefined).toBe(!schema.success);
  if (!schema.success) return;
  // The schema keeps a `customerId` key present with an undefined value; the reader leaves it out (JSON,
  // which is what the stores hold, never has one).
  const { customerId, ...rest } = schema.data;
  expect(read).toStrictEqual(customerId === undefined ? rest : schema.data);
}

describe('readEngineData', () => {
  it('accepts and returns what the EngineData schema does, on valid, spoiled and arbitrary values', () => {
    fc.assert(
      fc.property(fc.oneof(valid, spoiled, fc.anything(), fc.jsonValue()), (value) => {
        expectSameAsSchema(value);
        expectSameAsSchema(JSON.parse(JSON.stringify(value ?? null)) as unknown);
      }),
      { numRuns: 3000 },
    );
  });

  it('returns a copy: changing the history, form or params read does not change the stored value', () => {
    const stored = {
      v: 1,
      lang: 'en',
      page: 0,
      params: { name: 'Amina' },
      history: [{ node: 'preMenu', params: {} }],
      form: { fullName: 'Amina' },
      secrets: {},
    };
    const before = structuredClone(stored);
    const read = readEngineData(stored);
    if (read === undefined) throw new Error('valid data was refused');
    read.history.push({ node: 'account', params: {} });
    (read.history[0] as { params: Record<string, string> }).params['x'] = 'y';
    read.form['email'] = 'a@example.com';
    read.params['name'] = 'changed';
    expect(stored).toStrictEqual(before);
  });

  it('refuses the edges the schema refuses', () => {
    const base = { v: 1, lang: 'en', page: 0, params: {}, history: [], form: {}, secrets: {} };
    expect(readEngineData(base)).toStrictEqual(base);
    for (const bad of [
      { ...base, v: 2 },
      { ...base, page: -1 },
      { ...base, page: 1.5 },
      { ...base, params: [] },
      { ...base, form: { a: 1 } },
      { ...base, secrets: null },
      { ...base, customerId: 7 },
      { ...base, history: Array.from({ length: 101 }, () => ({ node: 'a', params: {} })) },
      { ...base, history: [{ node: 'a' }] },
      null,
      [],
      'data',
    ]) {
      expect(readEngineData(bad)).toBeUndefined();
      expect(EngineData.safeParse(bad).success).toBe(false);
    }
  });
});
