import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  // Delegations are kept in localStorage (as in a browser); each test starts as a new page would.
  globalThis.localStorage?.clear();
});
