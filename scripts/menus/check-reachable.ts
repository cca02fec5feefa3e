import { edgesOf, START, writtenReferences } from './check-references.js';
import { nearest } from './did-you-mean.js';
import type { MenuModel } from './load-model.js';
import { placeOf, type MenuErrors } from './menu-errors.js';
import type { Location } from './locate.js';

/**
 * Every node can be reached from the top menu by options, inputs, actions' declared targets or back.
 *
 * A node that is unreachable only because of another problem (a `next` naming a node that does not exist
 * when a near one does, a node that could not be read, a file with a wrong section) is reported as a
 * consequence of that problem: the reachability is computed again as if the likely fix were made (the
 * near id for the wrong one; every `next`/`back` written in a node that could not be read), and a node
 * reachable then says which problem hides it.
 */
export function checkReachable(model: MenuModel, errors: MenuErrors): void {
  const ids = new Set([...model.nodes.keys(), ...model.broken.keys()]);
  if (!ids.has(START)) return;
  const strict = new Map<string, string[]>();
  const repaired = new Map<string, { to: string; cause: Location | undefined }[]>();
  const add = <T>(map: Map<string, T[]>, from: string, item: T): void => {
    map.set(from, [...(map.get(from) ?? []), item]);
  };
  for (const edge of edgesOf(model)) {
    if (ids.has(edge.to)) {
      add(strict, edge.from, edge.to);
      add(repaired, edge.from, { to: edge.to, cause: undefined });
      continue;
    }
    const fix = nearest(edge.to, ids);
    if (fix !== undefined) add(repaired, edge.from, { to: fix, cause: edge.loc });
  }
  for (const [id, { value, loc }] of model.broken) {
    for (const { to } of writtenReferences(value)) {
      const fix = ids.has(to) ? to : nearest(to, ids);
      if (fix !== undefined) add(repaired, id, { to: fix, cause: loc });
    }
  }

  const seen = reach(strict);
  const hiddenBy = new Map<string, Location | undefined>();
  const queue = [START];
  hiddenBy.set(START, undefined);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const { to, cause } of repaired.get(id) ?? []) {
      if (hiddenBy.has(to)) continue;
      hiddenBy.set(to, seen.has(to) ? undefined : (cause ?? hiddenBy.get(id)));
      queue.push(to);
    }
  }
  for (const [id, { loc }] of model.nodes) {
    if (seen.has(id)) continue;
    const cause = hiddenBy.get(id);
    if (cause !== undefined)
      errors.at(loc, `not reachable from ${START}`, `a consequence of ${placeOf(cause)}`);
    else if (model.incomplete !== undefined && !hiddenBy.has(id))
      errors.at(
        loc,
        `not reachable from ${START}`,
        `maybe a consequence of ${placeOf(model.incomplete.loc)}`,
      );
    else errors.at(loc, `not reachable from ${START}`);
  }
}

function reach(out: ReadonlyMap<string, readonly string[]>): Set<string> {
  const seen = new Set([START]);
  const queue = [START];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const to of out.get(id) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return seen;
}
