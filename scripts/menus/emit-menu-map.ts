import type { CompiledNode, MenuTree } from '../../lib/ussd/menu-tree.js';
import { REGENERATE_COMMAND } from '../lib/header.js';

/**
 * The menu map: a picture of the compiled tree, every screen with its id, its options (key, label, the
 * action they run, who sees them), inputs (check, saved field) and where each leads. Drawn as a tree from
 * the top menu: each node sits right of the first screen that leads to it (breadth first, in the order the
 * YAML lists options); a link to a node drawn elsewhere (back to the top menu, a retry) is written in the
 * row as `→ id`. Texts are in the default language. Deterministic: the same tree gives the same bytes.
 *
 * Two forms: an SVG (docs/menus.md and the simulator page show it; the simulator highlights the screen
 * a session is on through each box's `data-node`) and Mermaid in Markdown (GitHub draws it, and a diff of
 * it reads as a change of the menus).
 */

/** One line of a box: text, and the nodes it leads to. */
interface Row {
  text: string;
  /** A muted line (a fixed Back, the number of pages). */
  muted?: boolean;
  targets: string[];
}

interface Box {
  id: string;
  kind: CompiledNode['kind'];
  heading: string;
  rows: Row[];
}

/** What one row of a box reads as, for the node's kind; shared by the SVG and Mermaid. */
function boxOf(tree: MenuTree, id: string, node: CompiledNode): Box {
  const lang = tree.defaultLanguage;
  const t = (text: Readonly<Record<string, string>> | undefined): string => oneLine(text?.[lang] ?? '');
  const backRow = (back: boolean | string): Row[] =>
    typeof back === 'string' ? [{ text: `0 Back`, muted: true, targets: [back] }] : [];
  switch (node.kind) {
    case 'menu':
      return {
        id,
        kind: node.kind,
        heading: t(node.title),
        rows: [
          ...node.options.map((o) => ({
            text: [
              `${o.key} ${t(o.label)}`,
              o.action ? `⚙ ${o.action.name}` : '',
              o.when === 'authenticated' ? '(logged in)' : o.when === 'anonymous' ? '(logged out)' : '',
            ]
              .filter(Boolean)
              .join('  '),
            targets: o.action ? [...o.action.targets] : o.next === undefined ? [] : [o.next],
          })),
          ...backRow(node.back),
        ],
      };
    case 'info': {
      const pages = node.pages[lang]?.length ?? 1;
      return {
        id,
        kind: node.kind,
        heading: t({ [lang]: node.pages[lang]?.[0] ?? '' }),
        rows: [
          ...(pages > 1 ? [{ text: `${pages} pages (98 More)`, muted: true, targets: [] }] : []),
          ...backRow(node.back),
        ],
      };
    }
    case 'input': {
      const check = [
        node.validate === undefined
          ? 'any text'
          : `✓ ${node.validate}${node.maxLength === undefined ? '' : ` ≤${node.maxLength}`}`,
        node.save === undefined ? '' : `save ${node.save}${node.secret ? ' (secret)' : ''}`,
        node.optional ? '00 Skip' : '',
      ]
        .filter(Boolean)
        .join(' · ');
      return {
        id,
        kind: node.kind,
        heading: t(node.prompt),
        rows: [
          {
            text: node.action ? `${check}  ⚙ ${node.action.name}` : check,
            targets: node.action ? [...node.action.targets] : node.next === undefined ? [] : [node.next],
          },
          ...backRow(node.back),
        ],
      };
    }
    case 'action':
      return {
        id,
        kind: node.kind,
        heading: 'runs at once',
        rows: [{ text: `⚙ ${node.action.name}`, targets: [...node.action.targets] }],
      };
    case 'end':
      return { id, kind: node.kind, heading: t(node.text), rows: [] };
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Each node's parent in the drawing: the first box (breadth first from the top menu) that leads to it. */
function spanningTree(
  tree: MenuTree,
  boxes: ReadonlyMap<string, Box>,
): { children: Map<string, string[]>; order: string[] } {
  const children = new Map<string, string[]>();
  const placed = new Set([tree.start]);
  const order = [tree.start];
  for (let i = 0; i < order.length; i++) {
    const id = order[i] ?? '';
    const own: string[] = [];
    for (const row of boxes.get(id)?.rows ?? []) {
      if (row.muted) continue;
      for (const to of row.targets) {
        if (placed.has(to) || !boxes.has(to)) continue;
        placed.add(to);
        own.push(to);
        order.push(to);
      }
    }
    children.set(id, own);
  }
  // Nodes no screen leads to (the generator refuses them; a fixture may have one) hang off the top.
  for (const id of boxes.keys()) {
    if (placed.has(id)) continue;
    placed.add(id);
    order.push(id);
    children.get(tree.start)?.push(id);
    children.set(id, []);
  }
  return { children, order };
}

// ---------------------------------------------------------------------------------------------------- SVG

const CHAR = 7.3; // width of a character of the 12px monospace font, for sizing boxes
const LINE = 18;
const HEAD = 22;
const PAD = 8;
const MAX_CHARS = 46;
const COL_GAP = 70;
const ROW_GAP = 14;
const MARGIN = 20;
const TITLE_HEIGHT = 54;

function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const num = (n: number): string => String(Math.round(n * 10) / 10);

interface Placed {
  box: Box;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Text of each row as drawn, with `→ id` for links drawn elsewhere. */
  lines: string[];
}

/** The SVG of the menu map. `sources` are named in its header comment. */
export function emitMenuMapSvg(tree: MenuTree, sources: readonly string[], generator: string): string {
  const boxes = new Map(Object.entries(tree.nodes).map(([id, node]) => [id, boxOf(tree, id, node)]));
  const { children, order } = spanningTree(tree, boxes);
  const parentOf = new Map<string, string>();
  for (const [parent, kids] of children) for (const kid of kids) parentOf.set(kid, parent);
  const depth = new Map<string, number>([[tree.start, 0]]);
  for (const id of order) if (id !== tree.start) depth.set(id, (depth.get(parentOf.get(id) ?? '') ?? 0) + 1);

  // Row texts: a target drawn as this box's child gets a line; any other target is named in the row.
  const linesOf = (box: Box): string[] =>
    box.rows.map((row) => {
      const elsewhere = row.targets.filter((to) => parentOf.get(to) !== box.id || row.muted);
      return elsewhere.length === 0 ? row.text : `${row.text}  → ${elsewhere.join(', ')}`;
    });
  const widthOf = (box: Box, lines: readonly string[]): number => {
    const chars = Math.max(
      [...`${box.id}  ${box.kind}`].length + 2,
      ...[box.heading, ...lines].map((l) => Math.min([...l].length, MAX_CHARS)),
    );
    return Math.ceil(Math.min(chars, MAX_CHARS) * CHAR + 2 * PAD);
  };
  const heightOf = (box: Box): number => HEAD + LINE * (1 + box.rows.length) + PAD;

  const columns: number[] = [];
  for (const id of order) {
    const box = boxes.get(id);
    if (!box) continue;
    const d = depth.get(id) ?? 0;
    columns[d] = Math.max(columns[d] ?? 0, widthOf(box, linesOf(box)));
  }
  const columnX: number[] = [];
  columns.reduce((x, w, i) => ((columnX[i] = x), x + w + COL_GAP), MARGIN);

  const placed = new Map<string, Placed>();
  /** Places `id` at or below `top` (its column's next free place); returns the bottom of its subtree. */
  const place = (id: string, top: number): number => {
    const box = boxes.get(id);
    if (!box) return top;
    const lines = linesOf(box);
    const d = depth.get(id) ?? 0;
    const height = heightOf(box);
    placed.set(id, { box, x: columnX[d] ?? MARGIN, y: top, width: columns[d] ?? 0, height, lines });
    let bottom = top + height;
    let next = top;
    box.rows.forEach((row, i) => {
      for (const to of row.targets) {
        if (row.muted || parentOf.get(to) !== id || placed.has(to)) continue;
        const rowY = top + HEAD + LINE * (i + 1);
        next = place(to, Math.max(next, rowY - HEAD)) + ROW_GAP;
        bottom = Math.max(bottom, next - ROW_GAP);
      }
    });
    return bottom;
  };
  const height = place(tree.start, MARGIN + TITLE_HEIGHT) + MARGIN;
  const width = (columnX.at(-1) ?? MARGIN) + (columns.at(-1) ?? 0) + MARGIN;

  const links: string[] = [];
  const drawn: string[] = [];
  for (const id of order) {
    const p = placed.get(id);
    if (!p) continue;
    const { box, x, y, width: w, height: h, lines } = p;
    const parts = [
      `<g class="screen kind-${box.kind}" id="screen-${xml(id)}" data-node="${xml(id)}">`,
      `<title>${xml(`${id} (${box.kind})`)}</title>`,
      `<rect class="box" x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" rx="8"/>`,
      `<path class="band" d="M${num(x)} ${num(y + HEAD)}V${num(y + 8)}a8 8 0 0 1 8 -8H${num(x + w - 8)}a8 8 0 0 1 8 8V${num(y + HEAD)}Z"/>`,
      `<text class="id" x="${num(x + PAD)}" y="${num(y + 15)}">${xml(id)}</text>`,
      `<text class="kind" x="${num(x + w - PAD)}" y="${num(y + 15)}" text-anchor="end">${box.kind}</text>`,
      `<text class="heading" x="${num(x + PAD)}" y="${num(y + HEAD + 14)}">${xml(clip(box.heading, MAX_CHARS))}</text>`,
      ...lines.map(
        (line, i) =>
          `<text class="${box.rows[i]?.muted ? 'row muted' : 'row'}" x="${num(x + PAD)}" y="${num(y + HEAD + LINE * (i + 1) + 14)}">${xml(clip(line, MAX_CHARS))}</text>`,
      ),
      '</g>',
    ];
    drawn.push(parts.join(''));
    box.rows.forEach((row, i) => {
      if (row.muted) return;
      for (const to of row.targets) {
        const child = placed.get(to);
        if (!child || parentOf.get(to) !== id) continue;
        const x1 = x + w;
        const y1 = y + HEAD + LINE * (i + 1) + 10;
        const x2 = child.x;
        const y2 = child.y + HEAD / 2;
        const mid = (x1 + x2) / 2;
        links.push(
          `<path class="link" data-from="${xml(id)}" data-to="${xml(to)}" d="M${num(x1)} ${num(y1)}C${num(mid)} ${num(y1)} ${num(mid)} ${num(y2)} ${num(x2 - 2)} ${num(y2)}"/>`,
        );
      }
    });
  }

  const style = [
    'text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12px;fill:#1f2933}',
    '.box{fill:#fff;stroke:#9aa5b1;stroke-width:1.2}',
    '.band{fill:#e4e7eb}',
    '.kind-menu .band{fill:#d9e8fb}.kind-input .band{fill:#fdecc8}.kind-info .band{fill:#e3f4e6}',
    '.kind-end .band{fill:#f9dcdc}.kind-action .band{fill:#eadcf8}',
    '.id{font-weight:700}.kind{fill:#52606d;font-size:11px}.heading{font-style:italic;fill:#323f4b}',
    '.muted{fill:#7b8794}',
    '.link{fill:none;stroke:#7b8794;stroke-width:1.3;marker-end:url(#arrow)}',
    '.current .box{stroke:#d9480f;stroke-width:3;fill:#fff4e6}.current .band{fill:#ffc078}',
    '.title{font-size:16px;font-weight:700}.legend{fill:#52606d;font-size:11px}',
  ].join('\n');
  const header = `Code generated by ${generator} from ${sources.join(', ')}. DO NOT EDIT. Regenerate with: ${REGENERATE_COMMAND}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" role="img" aria-label="USSD menu map">`,
    `<!-- ${xml(header)} -->`,
    `<style>\n${style}\n</style>`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#7b8794"/></marker></defs>',
    `<rect width="${num(width)}" height="${num(height)}" fill="#f8f9fb"/>`,
    `<text class="title" x="${MARGIN}" y="${MARGIN + 14}">USSD menu map: ${Object.keys(tree.nodes).length} nodes, from the top menu ${xml(tree.start)}</text>`,
    `<text class="legend" x="${MARGIN}" y="${MARGIN + 34}">${xml(
      `Texts in ${tree.languages[tree.defaultLanguage] ?? tree.defaultLanguage}. ⚙ runs an action · (logged in) only shown then · ✓ input check · → goes to a node drawn elsewhere`,
    )}</text>`,
    ...links,
    ...drawn,
    '</svg>',
    '',
  ].join('\n');
}

// ------------------------------------------------------------------------------------------------ Mermaid

function mermaidText(text: string): string {
  return clip(text, 60).replace(/"/g, '#quot;');
}

/** The map as Mermaid (flowchart) in a Markdown file. */
export function emitMenuMapMarkdown(tree: MenuTree, sources: readonly string[], generator: string): string {
  const boxes = Object.entries(tree.nodes).map(([id, node]) => boxOf(tree, id, node));
  const shape = (box: Box): string => {
    const label = `"<b>${box.id}</b><br/>${mermaidText(box.heading)}"`;
    switch (box.kind) {
      case 'menu':
        return `${box.id}[${label}]`;
      case 'info':
        return `${box.id}(${label})`;
      case 'input':
        return `${box.id}[/${label}/]`;
      case 'action':
        return `${box.id}{{${label}}}`;
      case 'end':
        return `${box.id}([${label}])`;
    }
  };
  const lines = ['flowchart LR', ...boxes.map((b) => `  ${shape(b)}`)];
  for (const box of boxes) {
    for (const row of box.rows) {
      for (const to of row.targets) {
        lines.push(
          row.muted
            ? `  ${box.id} -. "${mermaidText(row.text)}" .-> ${to}`
            : `  ${box.id} -- "${mermaidText(row.text)}" --> ${to}`,
        );
      }
    }
  }
  return [
    `<!-- Code generated by ${generator} from ${sources.join(', ')}. DO NOT EDIT. Regenerate with: ${REGENERATE_COMMAND} -->`,
    '',
    '# USSD menu map',
    '',
    `Every node of the menus, from the top menu \`${tree.start}\`, in ${tree.languages[tree.defaultLanguage] ?? tree.defaultLanguage}. ` +
      'Edges are labelled with the key typed (⚙ an action runs; "(logged in)" or "(logged out)": shown only then); dotted edges are a fixed Back. ' +
      'The same map as a picture: [menu-map.svg](menu-map.svg).',
    '',
    '```mermaid',
    ...lines,
    '```',
    '',
  ].join('\n');
}
