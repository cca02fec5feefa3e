/**
 * What the docs checker (scripts/tools/check-docs.ts) and the runnable-blocks test (test/docs/) read in a
 * Markdown page: its headings' anchors as GitHub makes them, its links, the npm scripts it names, and the
 * code blocks marked `<!-- runnable -->`.
 */

/** The marker line before a code block that test/docs/runnable.test.ts runs against a started server. */
export const RUNNABLE_MARKER = '<!-- runnable -->';

/** A fenced code block: its info string (`sh`), its text, and the 1-based line of its opening fence. */
export interface CodeBlock {
  info: string;
  text: string;
  line: number;
  runnable: boolean;
}

/** A link of the page: its target as written and the 1-based line it is on. */
export interface DocLink {
  target: string;
  line: number;
}

/** The lines of `markdown`, each marked as inside a fenced code block or not, and its fenced blocks. */
function scan(markdown: string): { prose: { text: string; line: number }[]; blocks: CodeBlock[] } {
  const lines = markdown.split('\n');
  const prose: { text: string; line: number }[] = [];
  const blocks: CodeBlock[] = [];
  let open: { fence: string; info: string; line: number; body: string[]; runnable: boolean } | undefined;
  let lastProse = '';
  lines.forEach((raw, i) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(raw);
    if (open) {
      if (fence?.[1] && fence[1].startsWith(open.fence) && raw.trim() === fence[1]) {
        blocks.push({
          info: open.info,
          text: open.body.join('\n'),
          line: open.line,
          runnable: open.runnable,
        });
        open = undefined;
        lastProse = '';
      } else {
        open.body.push(raw);
      }
      return;
    }
    if (fence?.[1]) {
      open = {
        fence: fence[1],
        info: fence[2] ?? '',
        line: i + 1,
        body: [],
        runnable: lastProse.trim() === RUNNABLE_MARKER,
      };
      return;
    }
    prose.push({ text: raw, line: i + 1 });
    if (raw.trim() !== '') lastProse = raw;
  });
  return { prose, blocks };
}

/** `text` without its inline code spans. */
const withoutCode = (text: string): string => text.replace(/(`+)[\s\S]*?\1/g, '');

/**
 * The anchor GitHub gives a heading: its text lower-cased, markup and punctuation dropped (letters, marks,
 * digits, `_`, `-` and spaces stay), spaces made `-`; a repeated one gets `-1`, `-2` ….
 */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs (repeats numbered) and explicit `<a id>`/`<a name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of scan(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
      seen.set(slug, count + 1);
    }
    for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (m[1]) anchors.add(m[1]);
  }
  return anchors;
}

/** The page's Markdown links and images outside code (`[text](target)`, `![alt](target)`). */
export function linksOf(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { text, line } of scan(markdown).prose) {
    for (const m of withoutCode(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (m[1]) links.push({ target: m[1], line });
    }
  }
  return links;
}

/** The npm scripts a page names (`npm run X`, `npm run -s X`), with the workspace when `-w <name>` follows. */
export function npmScriptsOf(markdown: string): { script: string; workspace?: string; line: number }[] {
  const found: { script: string; workspace?: string; line: number }[] = [];
  markdown.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(
      /npm run(?:\s+(?:-s|--silent))?\s+([a-z][\w:.-]*)((?:\s+-w\s+[\w@/.-]+)?)/g,
    )) {
      const workspace = /-w\s+([\w@/.-]+)/.exec(m[2] ?? '')?.[1];
      // Sentence punctuation after a name is not part of it (`… run npm run generate.`).
      const script = m[1]?.replace(/[:.]+$/, '');
      if (script) found.push({ script, ...(workspace ? { workspace } : {}), line: i + 1 });
    }
  });
  return found;
}

/** The page's fenced code blocks, each marked runnable when `<!-- runnable -->` is the line before it. */
export function codeBlocksOf(markdown: string): CodeBlock[] {
  return scan(markdown).blocks;
}

/**
 * The 1-based lines that scripts write: those between a marker pair (`<!-- name … -->` … `<!-- /name -->`, or
 * `<!-- name:start … -->` … `<!-- name:end -->`), and every line of a page that says at its top that a script
 * writes it (`<!-- Written by … do not edit. -->`, `<!-- Generated by … DO NOT EDIT … -->`).
 */
export function generatedLines(markdown: string): Set<number> {
  const lines = markdown.split('\n');
  const generated = new Set<number>();
  if (lines.slice(0, 5).some((l) => /^<!-- (?:Written|Generated) by .*do not edit.*-->$/i.test(l.trim()))) {
    lines.forEach((_, i) => generated.add(i + 1));
    return generated;
  }
  lines.forEach((line, end) => {
    const close = /^<!-- (?:\/([\w:-]+)|([\w-]+):end) -->$/.exec(line.trim());
    const name = close?.[1] ?? close?.[2];
    if (!name) return;
    for (let start = end - 1; start >= 0; start--) {
      const open = lines[start]?.trim() ?? '';
      if (
        open.startsWith(`<!-- ${name} `) ||
        open.startsWith(`<!-- ${name}:start`) ||
        open === `<!-- ${name} -->`
      ) {
        for (let i = start; i <= end; i++) generated.add(i + 1);
        return;
      }
    }
  });
  return generated;
}

/** Lines of prose (outside code and outside what scripts write) that carry a date: a run log typed by hand. */
export function datedProseOf(markdown: string): { line: number; date: string }[] {
  const generated = generatedLines(markdown);
  return scan(markdown)
    .prose.filter(({ line }) => !generated.has(line))
    .flatMap(({ text, line }) => {
      const date = /\b20\d\d-[01]\d-[0-3]\d\b/.exec(withoutCode(text))?.[0];
      return date ? [{ line, date }] : [];
    });
}
