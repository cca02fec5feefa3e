import { useMemo } from 'react';
import type { Memory, RememberBody } from '../../../contracts/memory.js';
import { memoryRoutes as memoryContract } from '../http/routes.js';
import { resolveOracle } from '../config/config-queries.js';
import { useOraclesContext } from '../context/oracles-context.js';
import type { OracleOverrides } from '../types.js';

/** What {@link useMemoryEngine} returns: the memory plugin's routes, for any oracle. */
export interface UseMemoryEngineResult {
  /** The user's memories with an oracle, newest first; `q` filters by words or a tag. */
  listMemories: (
    oracleDid: string,
    query?: { q?: string; limit?: number; offset?: number },
    overrides?: OracleOverrides,
  ) => Promise<{ memories: Memory[]; total: number }>;
  /** Stores a memory. */
  remember: (oracleDid: string, body: RememberBody, overrides?: OracleOverrides) => Promise<Memory>;
  /** Deletes a memory. */
  forget: (oracleDid: string, memoryId: string, overrides?: OracleOverrides) => Promise<void>;
}

/**
 * Reads and writes the optional persistent memory engine (spec C5): the memory plugin's `/memory` routes of
 * an oracle, with the user's capability tokens. Each call waits for the oracle's config when it is still
 * resolving; `overrides` (`{ baseUrl }`) replace the resolved address.
 *
 * @example
 * const memory = useMemoryEngine();
 * await memory.remember(oracleDid, { content: 'Prefers metric units', tags: ['units'] });
 * const { memories } = await memory.listMemories(oracleDid, { q: 'units' });
 */
export function useMemoryEngine(): UseMemoryEngineResult {
  const ctx = useOraclesContext();
  return useMemo<UseMemoryEngineResult>(
    () => ({
      listMemories: async (oracleDid, query = {}, overrides) =>
        (await resolveOracle(ctx, oracleDid, overrides)).http.call(memoryContract.list, { query }),
      remember: async (oracleDid, body, overrides) =>
        (await resolveOracle(ctx, oracleDid, overrides)).http.call(memoryContract.remember, { body }),
      forget: async (oracleDid, memoryId, overrides) => {
        const { http } = await resolveOracle(ctx, oracleDid, overrides);
        await http.call(memoryContract.forget, { params: { memoryId } });
      },
    }),
    [ctx],
  );
}
