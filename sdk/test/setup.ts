import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// waitFor's default second is short when other suites share the machine's two cores.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  // Delegations are kept in localStorage (as in a browser); each test starts as a new page would.
  globalThis.localStorage?.clear();
});
