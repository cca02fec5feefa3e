import type { ZodIssue } from 'zod';
import {
  LanguagesSection,
  validateMenuFile,
  type ParsedNode,
  type SystemTexts,
  type Translated,
} from './file-schema.js';
import type { Location, YamlPath } from './locate.js';
import { describePath, type MenuErrors } from './menu-errors.js';
import type { SourceFile } from './source-files.js';

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
  nodes: Map<string, Located<ParsedNode>>;
}

type Section = 'placeholders' | 'notices' | 'nodes';

/**
 * Validates every file and merges them. Returns undefined when anything failed (the problems are in
 * `errors`): later checks need a complete model.
 */
export function loadModel(files: readonly SourceFile[], errors: MenuErrors): MenuModel | undefined {
  const before = errors.count;
  for (const file of files) {
    for (const e of file.doc.errors) {
      const message = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      errors.atLine(file.name, e.linePos?.[0].line ?? 0, `YAML: ${message}`);
    }
  }
  if (errors.count > before) return undefined;

  const raw = files.map((file) => ({ file, data: (file.doc.toJS() ?? {}) as unknown }));
  const languages = findLanguages(raw, errors);
  if (!languages) return undefined;

  const parsed = raw.flatMap(({ file, data }) => {
    const result = validateMenuFile(data, Object.keys(languages.value));
    if (result.success) return [{ file, content: result.data }];
    for (const issue of result.error.issues) reportIssue(file, issue, errors);
    return [];
  });
  if (errors.count > before) return undefined;

  const model: Omit<MenuModel, 'system'> & { system: Located<SystemTexts> | undefined } = {
    languages: Object.keys(languages.value),
    languageNames: languages.value,
    placeholders: new Map(),
    system: undefined,
    notices: new Map(),
    nodes: new Map(),
  };
  for (const { file, content } of parsed) {
    if (content.system) {
      if (model.system)
        errors.at(
          { file, path: ['system'] },
          `system texts are already declared in ${where(model.system.loc)}`,
        );
      else model.system = { value: content.system, loc: { file, path: ['system'] } };
    }
    merge(model.placeholders, 'placeholders', content.placeholders, file, errors);
    merge(model.notices, 'notices', content.notices, file, errors);
    merge(model.nodes, 'nodes', content.nodes, file, errors);
  }
  if (!model.system) errors.general(files[0]?.name ?? 'menus', 'no file declares the "system" texts');
  if (errors.count > before || !model.system) return undefined;
  return { ...model, system: model.system };
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
        reportIssue(file, { ...issue, path: ['languages', ...issue.path] }, errors);
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

function reportIssue(file: SourceFile, issue: ZodIssue, errors: MenuErrors): void {
  const { field } = describePath(issue.path);
  let path: YamlPath = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    // Point at the first unknown key's line; name the object it is in.
    path = [...issue.path, issue.keys[0] ?? ''];
    message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  } else if (issue.code === 'invalid_type' && issue.received === 'undefined') {
    message = 'required';
  }
  errors.at({ file, path }, field ? `${field}: ${message}` : message);
}
