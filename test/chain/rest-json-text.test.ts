import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGES, METHODS, type FieldInfo } from '../../generated/proto/chain-descriptor.js';
import { toRestJson, toRestJsonText } from '../../server/chain/rest-json.js';

// The gateway writes its answers' JSON text straight from the decoded message (toRestJsonText). It must be
// exactly JSON.stringify(toRestJson(…)), the tree the REST conventions are tested on, for every message
// type the query methods answer with and for any values, the awkward ones included (unset, null, NaN,
// unknown enum numbers, bigint, quotes and control characters in strings, empty and non-empty bytes).

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

const seconds = fc.oneof(
  fc.integer({ min: 0, max: 253_402_300_799 }).map(String),
  fc.integer({ min: -62_135_596_800, max: -1 }).map(String),
);
const nanos = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999_999 }));
const secondsNanos = fc.record({ seconds, nanos });

function scalar(field: FieldInfo): fc.Arbitrary<unknown> {
  switch (field.kind) {
    case 'enum':
      return fc.oneof(fc.integer({ min: -1, max: 8 }), fc.constant(undefined));
    case 'int64':
      return fc.oneof(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(String),
        fc.integer(),
        fc.bigInt(),
        fc.constant(undefined),
      );
    case 'int32':
    case 'float':
      return fc.oneof(fc.integer(), fc.double(), fc.constant(-0), fc.constant(1e21), fc.constant(undefined));
    case 'bool':
      return fc.oneof(fc.boolean(), fc.constant(undefined), fc.constant(1));
    case 'string':
      return field.scalar === 'cosmos.Dec'
        ? fc.oneof(fc.bigInt().map(String), fc.constant(''), fc.constant('1.5'), fc.string())
        : fc.oneof(fc.string({ unit: 'binary' }), fc.constant(undefined), fc.constant('"\\\n\u2028'));
    case 'bytes':
      return fc.oneof(fc.uint8Array({ maxLength: 12 }), fc.constant(undefined));
    case 'message':
      throw new Error('not a scalar');
  }
}

/** An arbitrary decoded message of `type` (nested messages down to `depth`). */
function message(type: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const fields = MESSAGES[type] ?? [];
  const one = (field: FieldInfo): fc.Arbitrary<unknown> => {
    if (field.kind !== 'message') return scalar(field);
    if (field.type === TIMESTAMP || field.type === DURATION)
      return fc.oneof(secondsNanos, fc.constant(undefined));
    if (depth <= 0) return fc.constantFrom(undefined, null);
    return fc.oneof(message(field.type ?? '', depth - 1), fc.constant(undefined), fc.constant(null));
  };
  return fc.record(
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        field.repeated
          ? fc.oneof(fc.array(one(field), { maxLength: 3 }), fc.constant(undefined))
          : one(field),
      ]),
    ),
    { requiredKeys: [] },
  );
}

describe('toRestJsonText is JSON.stringify(toRestJson(…))', () => {
  const outputs = [...new Set(METHODS.map((m) => m.output))];

  it.each(outputs)('%s', (type) => {
    fc.assert(
      fc.property(message(type, 3), (decoded) => {
        expect(toRestJsonText(type, decoded)).toBe(JSON.stringify(toRestJson(type, decoded)));
      }),
      { numRuns: 150 },
    );
  });

  it('an unset message is null, an unknown type throws', () => {
    expect(toRestJsonText(outputs[0] ?? '', undefined)).toBe('null');
    expect(() => toRestJsonText('no.such.Type', {})).toThrow('no field table for no.such.Type');
  });
});
