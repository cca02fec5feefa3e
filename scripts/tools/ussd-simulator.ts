import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { RunningServer } from '../../server/server.js';

const USAGE = `Usage: npm run ussd -- [--url http://host:3000] [--phone +254712345678] [--code *384*123#]
                      [--session <id>] [--form]

A terminal phone for the USSD gateway. It dials, then sends each line you type as the next input,
accumulating the text with * as the telecom gateway does, and prints every screen. It stops on an END
reply. Lines can also be piped in:  printf '1\\n0\\n*\\n' | npm run ussd

  --url      a running gateway; without it the server starts in this process from the environment
             (embedded defaults: PGlite under PGLITE_DATA_DIR, in-process sessions)
  --form     post form-encoded bodies, as Africa's Talking does (default JSON)
  Commands:  /redial  start a new session    /quit  leave`;

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    phone: { type: 'string', default: '+254712345678' },
    code: { type: 'string', default: '*384*123#' },
    session: { type: 'string' },
    form: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

let server: RunningServer | undefined;
let baseUrl = opts.url;
if (baseUrl === undefined) {
  // Same code path as server/main.ts; logs go to stderr so screens stay readable. Loaded only here, so
  // dialling a running server with --url starts at once.
  const [{ loadConfig }, { createLogger }, { startServer }] = await Promise.all([
    import('../../server/config.js'),
    import('../../server/logger.js'),
    import('../../server/server.js'),
  ]);
  const config = loadConfig({
    ...process.env,
    ENABLED_PARTS: process.env['ENABLED_PARTS'] ?? 'ussd',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
  });
  server = await startServer(config, { port: 0, logger: createLogger(config.LOG_LEVEL, process.stderr) });
  baseUrl = server.url;
}

const newSessionId = (): string => opts.session ?? `sim-${randomBytes(4).toString('hex')}`;
let sessionId = newSessionId();
let inputs: string[] = [];

/** Posts the accumulated text; returns the reply, or throws on anything but HTTP 200. */
async function send(): Promise<string> {
  const fields = { sessionId, serviceCode: opts.code, phoneNumber: opts.phone, text: inputs.join('*') };
  const res = await fetch(new URL('/api/ussd', baseUrl), {
    method: 'POST',
    headers: { 'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: opts.form ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
  return text;
}

/** Prints a reply as a phone screen; returns true when the session ended. */
function show(reply: string): boolean {
  const kind = reply.slice(0, 3);
  console.log(
    `\n+---------------------------------------- ${kind}\n| ${reply.slice(4).split('\n').join('\n| ')}\n+----------------------------------------`,
  );
  return kind !== 'CON';
}

const interactive = process.stdin.isTTY;
const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
// Created before the first await, so piped lines that arrive while the dial is in flight are not lost.
const lines = rl[Symbol.asyncIterator]();
let exitCode = 0;
try {
  console.log(`Dialling ${opts.code} from ${opts.phone} (session ${sessionId}) at ${baseUrl}`);
  let ended = show(await send());
  while (!ended) {
    if (interactive) rl.prompt();
    const next = await lines.next();
    if (next.done === true) break;
    const line = next.value.trim();
    if (line === '/quit') break;
    if (line === '/redial') {
      sessionId = newSessionId();
      inputs = [];
      ended = show(await send());
    } else if (line !== '') {
      if (!interactive) console.log(`> ${line}`);
      inputs.push(line);
      ended = show(await send());
    }
  }
  console.log(ended ? '(session ended)' : '(input ended; the session stays open until it expires)');
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  rl.close();
  await server?.close();
}
process.exit(exitCode);
