import { z } from 'zod';
import type { ConfigSection } from '../../../config-section.js';
import { int } from '../../../env-values.js';

const schema = z.object({
  ORACLE_MAX_MEMORIES_PER_USER: int(0, 10_000_000, 1000).describe(
    'Facts one user keeps; one more answers 403 `quota_exceeded` (the tool gets a tool error); `0`: no quota. 1,000 is far more than a prompt recalls, and caps what one user stores.',
  ),
});

export type MemoryConfig = z.output<typeof schema>;

/** The memory plugin's variables. */
export const memoryConfig: ConfigSection<typeof schema, MemoryConfig> = {
  title: 'Memory plugin (`ORACLE_FEATURES=memory`)',
  schema,
};
