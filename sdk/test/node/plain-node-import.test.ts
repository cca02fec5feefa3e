// @vitest-environment node
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = fileURLToPath(new URL('../..', import.meta.url));

interface Probe {
  ok: boolean;
  error?: string;
  exports?: string[];
  touched: string[];
}

async function probe(entry: string): Promise<Probe> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'test/node/import-probe.ts', `./src/${entry}.ts`],
    {
      cwd: sdkDir,
    },
  );
  return JSON.parse(stdout) as Probe;
}

describe('importing an entry in plain Node', () => {
  it.concurrent.each(['index', 'live-agent', 'chain'])(
    '%s neither throws nor touches a browser global',
    async (entry) => {
      const result = await probe(entry);
      expect(result.error).toBeUndefined();
      expect(result).toMatchObject({ ok: true, touched: [] });
    },
  );

  it.concurrent(
    'msw neither throws nor touches a browser global beyond msw’s own environment checks',
    async () => {
      const result = await probe('msw');
      expect(result.error).toBeUndefined();
      expect(result.ok).toBe(true);
      // msw itself reads `typeof navigator` / `typeof localStorage` to tell Node from a browser; nothing else.
      expect(result.touched.filter((n) => n !== 'navigator' && n !== 'localStorage')).toEqual([]);
    },
  );

  it.concurrent(
    'dev neither throws nor touches a browser global beyond its signer’s environment check',
    async () => {
      const result = await probe('dev');
      expect(result.error).toBeUndefined();
      expect(result.ok).toBe(true);
      // one-webcrypto (under @ucanto/principal) reads `self` to find Web Crypto; nothing else.
      expect(result.touched.filter((n) => n !== 'self')).toEqual([]);
    },
  );
});
