import { edgesOf, START } from './check-references.js';
import type { MenuModel } from './load-model.js';
import type { MenuErrors } from './menu-errors.js';

/** Every node can be reached from the top menu by options, inputs, actions' declared targets or back. */
export function checkReachable(model: MenuModel, errors: MenuErrors): void {
  if (!model.nodes.has(START)) return;
  const out = new Map<string, string[]>();
  for (const edge of edgesOf(model)) out.set(edge.from, [...(out.get(edge.from) ?? []), edge.to]);
  const seen = new Set([START]);
  const queue = [START];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const to of out.get(id) ?? []) {
      if (!seen.has(to) && model.nodes.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  for (const [id, { loc }] of model.nodes) {
    if (!seen.has(id)) errors.at(loc, `not reachable from ${START}`);
  }
}
