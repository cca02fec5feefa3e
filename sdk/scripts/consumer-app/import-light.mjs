// In the light app (no msw, no livekit-client, no @ucanto/*): `.` and `./chain` import, ESM and CommonJS.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
for (const peer of ['msw', 'livekit-client', '@ucanto/core', '@ucanto/principal']) {
  assert.throws(() => require.resolve(peer), `${peer} should not be installed here`);
}
for (const entry of ['', '/chain']) {
  const name = `@open-oracles/oracles-client-sdk${entry}`;
  const esm = await import(name);
  const cjs = require(name);
  assert.ok(Object.keys(esm).length > 0, `${name} (import) has exports`);
  assert.deepEqual(
    Object.keys(cjs)
      .filter((k) => k !== 'default')
      .sort(),
    Object.keys(esm).sort(),
    name,
  );
}
const { useChat, oracleKeys } = await import('@open-oracles/oracles-client-sdk');
assert.equal(typeof useChat, 'function');
assert.deepEqual(oracleKeys.all, ['open-oracles']);
console.log('light install: . and ./chain import without the optional peers');
