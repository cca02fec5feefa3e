// ESLint rule `project/import-boundaries`: which folders of the repository a folder must not import, by the
// resolved path of each relative import (static, type-only, re-export and dynamic `import()`), so a
// rule means the same at any depth: `../http/` from server/oracle/runtime/ is the oracle's routes, `../../http/`
// the platform's request plumbing. Used by eslint.config.js; test/platform/lint-boundaries.test.ts runs it.
import path from 'node:path';

/** `file` is `folder` itself or lies under it (repository-relative paths with `/`, extensions ignored). */
const inside = (file, folder) => {
  const [f, d] = [file, folder].map((p) => p.replace(/\.[cm]?[jt]sx?$/, ''));
  return f === d || f.startsWith(`${d}/`);
};

/** @type {import('eslint').Rule.RuleModule} */
export const importBoundaries = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Forbids imports between folders that ../shared/design/ARCHITECTURE.md keeps apart.',
    },
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          from: { type: 'string', description: 'The folder (or file) the rule applies to.' },
          name: {
            type: 'string',
            description: 'How the message names `from` (default: the folder, `server/oracle/`).',
          },
          except: {
            type: 'array',
            items: { type: 'string' },
            description: 'Folders or files under `from` it does not apply to.',
          },
          forbidden: {
            type: 'array',
            items: { type: 'string' },
            minItems: 1,
            description: 'Folders they must not import.',
          },
          allow: {
            type: 'array',
            items: { type: 'string' },
            description: 'Files or folders inside `forbidden` that may still be imported.',
          },
          because: { type: 'string', description: 'Why, as the error message ends.' },
        },
        required: ['from', 'forbidden', 'because'],
        additionalProperties: false,
      },
    },
    messages: {
      forbidden: '{{from}} must not import {{target}} ({{specifier}}): {{because}}',
    },
  },
  create(context) {
    const cwd = context.cwd;
    const file = path.relative(cwd, context.filename).split(path.sep).join('/');
    const rules = context.options.filter(
      (rule) => inside(file, rule.from) && !(rule.except ?? []).some((dir) => inside(file, dir)),
    );
    if (rules.length === 0) return {};
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const specifier = source.value;
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) return;
      const target = path
        .relative(cwd, path.resolve(path.dirname(context.filename), specifier))
        .split(path.sep)
        .join('/');
      for (const rule of rules) {
        const folder = rule.forbidden.find((dir) => inside(target, dir));
        if (folder === undefined || (rule.allow ?? []).some((ok) => inside(target, ok))) continue;
        context.report({
          node: source,
          messageId: 'forbidden',
          data: {
            from: rule.name ?? `${rule.from}${rule.from.endsWith('.ts') ? '' : '/'}`,
            target: `${folder}/`,
            specifier,
            because: rule.because,
          },
        });
        return;
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
