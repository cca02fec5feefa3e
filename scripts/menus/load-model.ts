import type { ZodIssue } from 'zod';
import {
  type ActionDeclaration,
  LanguagesSection,
  menuSchemas,
  NODE_FIELDS,
  NODE_TYPES,
  type ParsedNode,
  type SystemTexts,
  type Translated,
} from './file-schema.js';
import { didYouMean } from './did-you-mean.js';
import { VALIDATOR_NAMES } from './validators.js';
import { isScalar } from 'yaml';
import { nodeAt, type Location, type YamlPath } from './locate.js';
import { describePath, type MenuErrors } from './menu-errors.js';
import type { SourceFile } from './source-files.js';
import { syntaxProblem } from './yaml-syntax.js';

/** A validated value and where it was written. */
export interface Located<T> {
  value: T;
  loc: Location;
}

/** All menu files merged: one namespace of nodes, notices and placeholders. */
export interface MenuModel {
  /** Language codes in the order declared; the first is the default. */
  languages: string[];
  languageNames: Record<string, string>;
  placeholders: Map<string, Located<number>>;
  system: Located<SystemTexts>;
  notices: Map<string, Located<Translated>>;
  /** What each action declares (`actions:`): the placeholders it can fill on the screen it leads to. */
  actions: Map<string, Located<ActionDeclaration>>;
  nodes: Map<string, Located<ParsedNode>>;
  /**
   * Nodes (and notices) that are declared but could not be read (their problems are reported): other
   * checks treat them as existing, and what only they could reach as a consequence of their problem.
   */
  broken: Map<string, Located<unknown>>;
  brokenNotices: Set<string>;
  /** A file could not be read or has a section that is wrong: some nodes may be missing altogether. */
  incomplete: Located<unknown> | undefined;
}

type Section = 'placeholders' | 'notices' | 'actions' | 'nodes';

/**
 * Validates every file and merges them, each node and notice on its own: a node that cannot be read is
 * reported and kept in `broken`, and the others are still checked. Returns undefined (the problems are in
 * `errors`) only when nothing further can be checked: a file YAML cannot read, no languages or no system
 * texts.
 */
export function loadModel(files: readonly SourceFile[], errors: MenuErrors): MenuModel | undefined {
  const before = errors.count;
  for (const file of files) {
    const problem = syntaxProblem(file);
    if (problem) errors.atLine(file.name, problem.line, problem.message);
  }
  if (errors.count > before) return undefined;

  const raw = files.map((file) => ({ file, data: (file.doc.toJS() ?? {}) as unknown }));
  const languages = findLanguages(raw, errors);
  if (!languages) return undefined;
  const schemas = menuSchemas(Object.keys(languages.value));

  const model: Omit<MenuModel, 'system'> & { system: Located<SystemTexts> | undefined } = {
    languages: Object.keys(languages.value),
    languageNames: languages.value,
    placeholders: new Map(),
    system: undefined,
    notices: new Map(),
    actions: new Map(),
    nodes: new Map(),
    broken: new Map(),
    brokenNotices: new Set(),
    incomplete: undefined,
  };
  for (const { file, data } of raw) {
    let result = schemas.file(data);
    if (!result.success) {
      for (const issue of result.error.issues)
        reportIssue(
          file,
          issue,
          errors,
          issue.path[0] === 'actions' ? NODE_FIELDS.actionDeclaration : NODE_FIELDS.file,
        );
      model.incomplete ??= { value: data, loc: { file, path: [] } };
      // The sections that are right are still read, so one wrong section hides nothing else.
      const wrong = new Set(result.error.issues.map((i) => i.path[0]));
      const rest = Object.fromEntries(
        Object.entries(isRecord(data) ? data : {}).filter(
          ([key]) => !wrong.has(key) && (NODE_FIELDS.file as readonly string[]).includes(key),
        ),
      );
      result = schemas.file(rest);
      if (!result.success) continue;
    }
    const content = result.data;
    if (content.system) {
      if (model.system)
        errors.at(
          { file, path: ['system'] },
          `system texts are already declared in ${where(model.system.loc)}`,
        );
      else model.system = { value: content.system, loc: { file, path: ['system'] } };
    }
    merge(model.placeholders, 'placeholders', content.placeholders, file, errors);
    merge(model.actions, 'actions', content.actions, file, errors);
    for (const [key, value] of Object.entries(content.notices ?? {})) {
      const notice = schemas.notice(value);
      if (notice.success) merge(model.notices, 'notices', { [key]: notice.data }, file, errors);
      else {
        model.brokenNotices.add(key);
        for (const issue of notice.error.issues)
          reportIssue(file, { ...issue, path: ['notices', key, ...issue.path] }, errors, []);
      }
    }
    for (const [id, value] of Object.entries(content.nodes ?? {})) {
      const node = schemas.node(value);
      if (node.success) {
        if (model.broken.has(id))
          errors.at({ file, path: ['nodes', id] }, `already declared in ${where(model.broken.get(id)!.loc)}`);
        else merge(model.nodes, 'nodes', { [id]: node.data }, file, errors);
        continue;
      }
      const loc = { file, path: ['nodes', id] };
      const existing = model.nodes.get(id) ?? model.broken.get(id);
      if (existing) errors.at(loc, `already declared in ${where(existing.loc)}`);
      else model.broken.set(id, { value, loc });
      const fields = fieldsOf(value);
      for (const issue of node.error.issues)
        reportIssue(file, { ...issue, path: ['nodes', id, ...issue.path] }, errors, fields(issue.path));
    }
  }
  if (!model.system) errors.general(files[0]?.name ?? 'menus', 'no file declares the "system" texts');
  if (!model.system) return undefined;
  return { ...model, system: model.system };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields allowed where an issue's path points inside a node (for "did you mean" on an unknown one). */
function fieldsOf(node: unknown): (path: readonly (string | number)[]) => readonly string[] {
  const type = (node as { type?: unknown } | null)?.type;
  const own =
    typeof type === 'string' && type in NODE_FIELDS ? NODE_FIELDS[type as keyof typeof NODE_FIELDS] : [];
  return (path) => (path[0] === 'options' && typeof path[1] === 'number' ? NODE_FIELDS.option : own);
}

function findLanguages(
  raw: readonly { file: SourceFile; data: unknown }[],
  errors: MenuErrors,
): Located<Record<string, string>> | undefined {
  const found: Located<Record<string, string>>[] = [];
  for (const { file, data } of raw) {
    if (!data || typeof data !== 'object' || !('languages' in data)) continue;
    const result = LanguagesSection.safeParse(data.languages);
    if (!result.success) {
      for (const issue of result.error.issues)
        reportIssue(file, { ...issue, path: ['languages', ...issue.path] }, errors, []);
      continue;
    }
    found.push({ value: result.data, loc: { file, path: ['languages'] } });
  }
  const [first, ...others] = found;
  for (const other of others) errors.at(other.loc, `languages are already declared in ${where(first!.loc)}`);
  if (!first) {
    errors.general(raw[0]?.file.name ?? 'menus', 'no file declares the "languages" section');
    return undefined;
  }
  if (Object.keys(first.value).length === 0) {
    errors.at(first.loc, 'declare at least one language');
    return undefined;
  }
  return others.length ? undefined : first;
}

function merge<T>(
  into: Map<string, Located<T>>,
  section: Section,
  entries: Record<string, T> | undefined,
  file: SourceFile,
  errors: MenuErrors,
): void {
  for (const [key, value] of Object.entries(entries ?? {})) {
    const loc = { file, path: [section, key] };
    const existing = into.get(key);
    if (existing) errors.at(loc, `already declared in ${where(existing.loc)}`);
    else into.set(key, { value, loc });
  }
}

function where(loc: Location): string {
  return loc.file.name;
}

function reportIssue(file: SourceFile, issue: ZodIssue, errors: MenuErrors, fields: readonly string[]): void {
  const { field } = describePath(issue.path);
  let path: YamlPath = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    // Point at the first unknown key's line; name the object it is in.
    path = [...issue.path, issue.keys[0] ?? ''];
    message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys
      .map((k) => `"${k}"${didYouMean(k, fields)}`)
      .join(', ')}`;
  } else if (issue.code === 'invalid_type' && issue.received === 'undefined') {
    message = 'required';
  } else if (issue.code === 'invalid_union_discriminator') {
    if (issue.path.at(-1) !== 'type') path = [...issue.path, 'type'];
    const written = nodeAt({ file, path });
    const type = isScalar(written) ? String(written.value) : '';
    message = `${message}${didYouMean(type, NODE_TYPES)}`;
  } else if (issue.code === 'invalid_enum_value' && issue.path.at(-1) === 'validate') {
    message = `unknown check "${String(issue.received)}" (known: ${VALIDATOR_NAMES.join(', ')})${didYouMean(String(issue.received), VALIDATOR_NAMES)}`;
  }
  errors.at({ file, path }, field && !path.includes('type') ? `${field}: ${message}` : message);
}
