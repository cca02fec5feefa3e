import { menuTree } from '../../generated/menus.js';
import { engineDialer } from './engine-dialer.js';

/**
 * The replies the service's own menus (generated/menus.ts) give a fresh phone to the texts `texts`, in
 * order (`''` is the dial), from the engine in process: what a test of the real server expects without
 * copying the menus' texts, so a change to menus/ touches only YAML, generated/ and the flows.
 */
export async function shippedReplies(...texts: string[]): Promise<string[]> {
  const dialer = engineDialer({ tree: menuTree });
  const replies: string[] = [];
  for (const text of texts) replies.push(await dialer.send(text, { phoneNumber: '+254700000777' }));
  return replies;
}
