import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';

// Issue 14 item 6: clients in other languages against a live server, from the document it serves. Each runs
// when its interpreter and packages are present (.ci/run installs them and sets CLIENTS_REQUIRED=1, so CI never
// skips); otherwise it is skipped with the reason printed.

const run = promisify(execFile);
const HERE = import.meta.dirname;
const REQUIRED = process.env['CLIENTS_REQUIRED'] === '1';

async function available(command: string, args: string[]): Promise<string | undefined> {
  try {
    await run(command, args);
    return undefined;
  } catch (err) {
    return `${command} ${args.join(' ')}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
  }
}

const perlMissing = await available('perl', ['-MOpenAPI::Client', '-e', '1']);
/** The first Python with the validators: the one on PATH, else Debian's (where its packages install). */
let python = 'python3';
let pythonMissing: string | undefined;
for (const candidate of ['python3', '/usr/bin/python3']) {
  pythonMissing = await available(candidate, [
    '-c',
    'import openapi_spec_validator, openapi_schema_validator',
  ]);
  if (pythonMissing === undefined) {
    python = candidate;
    break;
  }
}
for (const [name, missing] of [
  ['Perl client', perlMissing],
  ['Python sweep', pythonMissing],
] as const) {
  if (missing && !REQUIRED)
    console.warn(`test/clients: ${name} skipped (${missing}); Debian packages in .ci/run`);
}

async function liveServer() {
  return startTestApp({
    env: { ENABLED_PARTS: 'ussd,chain', USSD_RATE_LIMIT_PER_MINUTE: '0', REDIS_URL: '' },
  });
}

describe('clients in other languages', () => {
  it.skipIf(perlMissing !== undefined && !REQUIRED)(
    'Perl OpenAPI::Client built from /openapi.json calls every USSD and chain operation; each response validates',
    async () => {
      await using t = await liveServer();
      const { stdout } = await run('perl', [path.join(HERE, 'openapi-client.pl'), t.url]).catch(
        (err: { stdout?: string; message: string }) => {
          throw new Error(err.stdout ?? err.message);
        },
      );
      expect(stdout).toMatch(/operations called, 0 failed/);
    },
    60_000,
  );

  it.skipIf(pythonMissing !== undefined && !REQUIRED)(
    'Python validates the served document and every documented path’s responses',
    async () => {
      await using t = await liveServer();
      const { stdout } = await run(python, [path.join(HERE, 'openapi-sweep.py'), t.url]).catch(
        (err: { stdout?: string; message: string }) => {
          throw new Error(err.stdout ?? err.message);
        },
      );
      expect(stdout).toMatch(/, 0 failed/);
    },
    60_000,
  );
});
