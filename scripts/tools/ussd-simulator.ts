import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const DEFAULT_URL = 'http://localhost:3000';

const USAGE = `Usage: npm run ussd -- [--url ${DEFAULT_URL}] [--phone +254712345678] [--code *384*123#]
                      [--session <id>] [--form]

A terminal phone for a running USSD gateway. It talks to the server over HTTP exactly as a telecom
gateway does: it dials, then sends each line you type as the next input, accumulating the text with *,
and prints every screen. It stops on an END reply. Lines can also be piped in:
  printf '1\\n0\\n*\\n' | npm run ussd

  --url      the gateway's base URL (default ${DEFAULT_URL}); start one first with: npm start
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

// The simulator is a client only: it never opens the database (./data/pglite) or any server code.
const baseUrl = opts.url ?? DEFAULT_URL;

/** Thrown when nothing answers at the URL: the user is told how to start a server. */
class NoServerError extends Error {
  override name = 'NoServerError';
}

const newSessionId = (): string => opts.session ?? `sim-${randomBytes(4).toString('hex')}`;
let sessionId = newSessionId();
let inputs: string[] = [];

/** Posts the accumulated text; returns the reply, or throws on anything but HTTP 200. */
async function send(): Promise<string> {
  const fields = { sessionId, serviceCode: opts.code, phoneNumber: opts.phone, text: inputs.join('*') };
  let res: Response;
  try {
    res = await fetch(new URL('/api/ussd', baseUrl), {
      method: 'POST',
      headers: { 'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: opts.form ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    // fetch fails with a TypeError whose cause says why: refused, unknown host, unreachable, bad port.
    if (!(err instanceof TypeError)) throw err;
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : err.message;
    throw new NoServerError(
      `no USSD gateway answers at ${baseUrl} (${why}).\n` +
        'Start one in another terminal with:  npm start\n' +
        'or point the simulator at a running one:  npm run ussd -- --url http://host:port',
    );
  }
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
}
process.exit(exitCode);
