import { z } from 'zod';

const Params = z.record(z.string(), z.string());

/**
 * What the engine keeps in `UssdSession.data`, as JSON (the store may be Redis). Validated when a session
 * is loaded: a session written by an older version that does not fit is started afresh.
 */
export const EngineData = z.object({
  /** Format version of this object. */
  v: z.literal(1),
  /** Language of the screens. */
  lang: z.string(),
  /** Page of the current screen (0-based). */
  page: z.number().int().min(0),
  /** Placeholder values of the current screen. */
  params: Params,
  /** Screens `0. Back` returns to, oldest first. */
  history: z.array(z.object({ node: z.string(), params: Params })).max(100),
  /** Values inputs saved for the next steps of a form (cleared on every menu). */
  form: Params,
  /** Salted hashes of secret inputs waiting for confirmation (cleared on every menu). */
  secrets: Params,
  /** The logged-in customer. */
  customerId: z.string().optional(),
});
export type EngineData = z.infer<typeof EngineData>;
