import type { z } from 'zod';
import type { BrowserTool } from '../types.js';

/**
 * A browser tool whose `fn` argument is typed from its `schema` (the identity function, for inference when
 * the tool is defined apart from `useChat`).
 *
 * @example
 * const pageTitle = defineBrowserTool({
 *   toolName: 'pageTitle', description: 'Title of the page',
 *   schema: z.object({ upper: z.boolean() }),
 *   fn: ({ upper }) => (upper ? document.title.toUpperCase() : document.title),
 * });
 * useChat({ oracleDid, sessionId, onPaymentRequiredError, browserTools: { pageTitle } });
 */
export function defineBrowserTool<S extends z.ZodTypeAny>(tool: BrowserTool<S>): BrowserTool<S> {
  return tool;
}
