import { compareCodeUnits } from '../../lib/code-unit-order.js';
import { lineOf, type Location, type YamlPath } from './locate.js';

/** One problem found in the menus, with the file and line it is about. */
export interface MenuProblem {
  file: string;
  line: number;
  message: string;
  /** Set when the problem follows from another one: says which (`a consequence of menus/x.yaml:12`). */
  note?: string;
}

const SECTION_SUBJECT: Record<string, string> = {
  nodes: 'node',
  notices: 'notice',
  placeholders: 'placeholder',
  actions: 'action',
  system: 'system text',
};

/**
 * `node "pinEntry"`, `notice "pinWeak"`, … for the first two steps of a path; the rest of the path, if any,
 * as a field name like `option 2, label` (see fieldName).
 */
export function describePath(path: YamlPath): { subject: string | undefined; field: string } {
  const [section, name, ...rest] = path;
  const kind = typeof section === 'string' ? SECTION_SUBJECT[section] : undefined;
  if (kind !== undefined && name !== undefined)
    return { subject: `${kind} "${name}"`, field: fieldName(rest) };
  if (section === 'languages') return { subject: 'languages', field: fieldName(path.slice(1)) };
  return { subject: undefined, field: fieldName(path) };
}

/**
 * A path as an author counts: `options[2].label.en` is `option 3, label.en` (positions from 1, as the
 * options are seen on the screen), `next[0]` is `next (item 1)`.
 */
function fieldName(path: YamlPath): string {
  let out = '';
  for (const [i, step] of path.entries()) {
    if (typeof step === 'number') continue;
    const index = path[i + 1];
    const piece =
      typeof index !== 'number'
        ? step
        : step === 'options'
          ? `option ${index + 1}`
          : `${step} (item ${index + 1})`;
    out =
      out === ''
        ? piece
        : /^option \d+$/.test(out.split(', ').at(-1) ?? '')
          ? `${out}, ${piece}`
          : `${out}.${piece}`;
  }
  return out;
}

/** `option 3` for the option at index 2: positions count from 1 in every message. */
export function optionName(index: number): string {
  return `option ${index + 1}`;
}

/** Collects every problem, so one run reports them all; {@link MenuErrors.throwIfAny} ends the run. */
export class MenuErrors {
  readonly problems: MenuProblem[] = [];

  /**
   * A problem about what is at `loc`, described as `<file>:<line> <subject>: <message>`; `note` (for a
   * problem that follows from another) is printed after it in parentheses.
   */
  at(loc: Location, message: string, note?: string): void {
    const { subject } = describePath(loc.path);
    this.problems.push({
      file: loc.file.name,
      line: lineOf(loc),
      message: subject === undefined ? message : `${subject}: ${message}`,
      ...(note === undefined ? {} : { note }),
    });
  }

  /** Like {@link MenuErrors.at}, naming the field too: `node "x": title.sw: <message>`. */
  atField(loc: Location, message: string): void {
    const { field } = describePath(loc.path);
    this.at(loc, field ? `${field}: ${message}` : message);
  }

  /** A problem at a known line (YAML syntax errors). */
  atLine(file: string, line: number, message: string): void {
    this.problems.push({ file, line, message });
  }

  /** A problem that belongs to no single place (e.g. a section no file declares). */
  general(file: string, message: string): void {
    this.problems.push({ file, line: 0, message });
  }

  get count(): number {
    return this.problems.length;
  }

  /** Problems that stand on their own (not a consequence of another). */
  get causes(): number {
    return this.problems.filter((p) => p.note === undefined).length;
  }

  /** Throws one Error listing every problem, one per line, sorted by file and line. */
  throwIfAny(): void {
    if (this.problems.length === 0) return;
    const lines = [...this.problems]
      .sort(
        (a, b) =>
          compareCodeUnits(a.file, b.file) || a.line - b.line || compareCodeUnits(a.message, b.message),
      )
      .map((p) => {
        const text = p.note === undefined ? p.message : `${p.message} (${p.note})`;
        return p.line > 0 ? `${p.file}:${p.line} ${text}` : `${p.file}: ${text}`;
      });
    throw new Error([...new Set(lines)].join('\n'));
  }
}

/** `file:line` of a location, as problems print it: how a consequence names its cause. */
export function placeOf(loc: Location): string {
  return `${loc.file.name}:${lineOf(loc)}`;
}
