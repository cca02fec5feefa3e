import type { MenuTree } from '../../../../generated/menus.js';

/**
 * What the flows reached, read from the engine's debug log: `ussd step` names the node each request rests
 * on (an end node when the session ends there), `ussd action` every action run and the node it led to.
 * Returns the nodes (`id`) and actions (`action:name`) of the tree no flow reached, sorted.
 */
export function unreached(tree: MenuTree, logLines: readonly string[]): string[] {
  const reached = new Set<string>();
  for (const line of logLines) {
    const entry = JSON.parse(line) as { msg?: string; state?: string; action?: string; next?: string };
    if (entry.msg === 'ussd step' && entry.state) reached.add(entry.state);
    if (entry.msg === 'ussd action' && entry.action && entry.next) {
      reached.add(`action:${entry.action}`);
      reached.add(entry.next);
    }
  }
  const required = Object.entries(tree.nodes).map(([id, node]) =>
    node.kind === 'action' ? `action:${node.action.name}` : id,
  );
  const actions = Object.values(tree.nodes).flatMap((node) =>
    node.kind === 'menu'
      ? node.options.flatMap((o) => (o.action ? [`action:${o.action.name}`] : []))
      : node.kind === 'input' && node.action
        ? [`action:${node.action.name}`]
        : [],
  );
  return [...new Set([...required, ...actions])].filter((id) => !reached.has(id)).sort();
}

/** Every text of the menus, in every language (for words that only look like a customer ID). */
export function menuTexts(tree: MenuTree): string[] {
  const out: string[] = [];
  const add = (t: Readonly<Record<string, string>>): void => void out.push(...Object.values(t));
  Object.values(tree.system).forEach(add);
  Object.values(tree.notices).forEach(add);
  for (const node of Object.values(tree.nodes)) {
    switch (node.kind) {
      case 'menu':
        add(node.title);
        node.options.forEach((o) => add(o.label));
        break;
      case 'info':
        Object.values(node.pages).forEach((pages) => out.push(...pages));
        break;
      case 'input':
        add(node.prompt);
        break;
      case 'end':
        add(node.text);
        break;
      case 'action':
        break;
    }
  }
  return out;
}
