import { afterEach, vi } from 'vitest';

// Runs in every test file (vitest `setupFiles`). The files of a worker share one module graph
// (`isolate: false` in vitest.config.ts), so nothing a test changes globally may outlive it.
afterEach(() => {
  vi.useRealTimers();
});
