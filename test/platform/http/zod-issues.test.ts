import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues, zodIssueLines } from '../../../server/http/zod-issues.js';

// The one zod-issue formatter (server/http/zod-issues.ts) behind every message of the server that names what
// failed validation: chain InvalidArgument, oracle 400s, tool arguments, plugin manifests, rules files.

const issuesOf = (schema: z.ZodTypeAny, value: unknown): z.ZodIssue[] => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.error.issues;
};

const Shape = z.object({ a: z.string(), b: z.object({ c: z.number() }), list: z.array(z.string()) });
const bad = { a: 1, b: { c: 'x' }, list: ['ok', 2] };

describe('formatZodIssues', () => {
  it('names each issue by its path, joined with dots, separated by "; "', () => {
    expect(formatZodIssues(issuesOf(Shape, bad))).toBe(
      'a: Expected string, received number; b.c: Expected number, received string; ' +
        'list.1: Expected string, received number',
    );
  });

  it('puts the root in front of every path, and keeps at most `limit` issues', () => {
    expect(formatZodIssues(issuesOf(Shape, bad), { root: 'body', limit: 2 })).toBe(
      'body.a: Expected string, received number; body.b.c: Expected number, received string',
    );
  });

  it('gives an issue about the whole value its message alone, or the name of the whole', () => {
    const issues = issuesOf(z.object({ a: z.string() }), 'text');
    expect(formatZodIssues(issues)).toBe('Expected object, received string');
    expect(formatZodIssues(issues, { whole: 'arguments' })).toBe(
      'arguments: Expected object, received string',
    );
    expect(formatZodIssues(issues, { root: 'body' })).toBe('body: Expected object, received string');
  });

  it('never echoes the value', () => {
    expect(formatZodIssues(issuesOf(z.string().email(), 'secret-value'))).not.toContain('secret-value');
  });

  it('zodIssueLines gives one line per issue, for messages of a line each', () => {
    expect(zodIssueLines(issuesOf(Shape, bad), { limit: 1 })).toEqual([
      'a: Expected string, received number',
    ]);
  });
});
