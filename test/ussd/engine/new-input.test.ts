import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendProcessed, maskValue, newInput, segmentsOf } from '../../../server/ussd/engine/new-input.js';

describe('newInput: the inputs of a request that the session has not processed yet', () => {
  it.each([
    ['', '', { kind: 'repeat' }],
    ['', '1', { kind: 'new', segments: ['1'] }],
    ['', '*', { kind: 'new', segments: ['', ''] }],
    ['1', '1*2*3', { kind: 'new', segments: ['2', '3'] }],
    ['1', '1**', { kind: 'new', segments: ['', ''] }],
    ['1', '1*', { kind: 'new', segments: [''] }],
    ['1*2', '1*2', { kind: 'repeat' }],
    ['1*2', '1', { kind: 'diverged' }],
    ['1*2', '1*3*4', { kind: 'diverged' }],
    ['1*2', '1*22', { kind: 'diverged' }],
    ['2*2*••••', '2*2*Jane', { kind: 'repeat' }],
    ['2*2*••••', '2*2*Jane*00', { kind: 'new', segments: ['00'] }],
    ['2*2*••••', '2*2*Jan', { kind: 'diverged' }],
    ['2*2*••••', '2*1*Jane*00', { kind: 'diverged' }],
  ])('processed %j, text %j', (processed, text, expected) => {
    expect(newInput(processed, segmentsOf(text))).toEqual(expected);
  });

  it('masks typed values but keeps menu choices and the length, so a retry still matches', () => {
    const processed = appendProcessed('2*2', ['Jane Doe', '00', '24680'], [true, false, true]);
    expect(processed).toBe('2*2*••••••••*00*•••••');
    expect(newInput(processed, segmentsOf('2*2*Jane Doe*00*24680'))).toEqual({ kind: 'repeat' });
    expect(newInput(processed, segmentsOf('2*2*Jane Doe*00*24680*1'))).toEqual({
      kind: 'new',
      segments: ['1'],
    });
    expect(maskValue('24680')).toBe('•••••');
  });

  it('for any texts a and b, a then a*b gives b’s segments (masked or not)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[0-9A-Za-z ]{1,6}$/), { minLength: 1, maxLength: 5 }),
        fc.array(fc.stringMatching(/^[0-9A-Za-z ]{1,6}$/), { minLength: 1, maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (before, after, typed) => {
          const processed = appendProcessed('', before, typed);
          expect(newInput(processed, segmentsOf(before.join('*')))).toEqual({ kind: 'repeat' });
          expect(newInput(processed, segmentsOf([...before, ...after].join('*')))).toEqual({
            kind: 'new',
            segments: after,
          });
        },
      ),
    );
  });
});
