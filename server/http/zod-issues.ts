import type { ZodIssue } from 'zod';

/** How {@link zodIssueLines} names and counts issues. */
export interface ZodIssueOptions {
  /** Put in front of each issue's path (`body` gives `body.a.b`); alone when the path is empty. */
  root?: string;
  /** Where an issue about the value as a whole is, without a root (e.g. `arguments`); default: nowhere. */
  whole?: string;
  /** At most this many issues (default: all). */
  limit?: number;
}

/**
 * One line per issue, `where: message`, where `where` is the root and the issue's path joined with dots
 * (`pagination.limit: must be an unsigned 64-bit integer`); an issue with neither is its message alone. Values
 * are never echoed, only where they are and what is wrong.
 */
export function zodIssueLines(
  issues: readonly ZodIssue[],
  { root = '', whole = '', limit = issues.length }: ZodIssueOptions = {},
): string[] {
  return issues.slice(0, limit).map((issue) => {
    const where = [root, ...issue.path].filter((p) => p !== '').join('.') || whole;
    return where === '' ? issue.message : `${where}: ${issue.message}`;
  });
}

/** {@link zodIssueLines} on one line, separated by `; `: the form every message of the server uses. */
export function formatZodIssues(issues: readonly ZodIssue[], options?: ZodIssueOptions): string {
  return zodIssueLines(issues, options).join('; ');
}
