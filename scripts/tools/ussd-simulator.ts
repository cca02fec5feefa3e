import { randomBytes, randomInt } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { menuTree } from '../../generated/menus.js';
import { readDotEnv } from '../../server/env-file.js';
import { menuTexts } from './lib/ussd-flows/coverage.js';
import { writeFlow, type FlowFile } from './lib/ussd-flows/flow-file.js';
import { freshName, idLikeWords, newIds, templateOf } from './lib/ussd-flows/flow-template.js';
import { finishAt, nextInput, type WalkGoal, type WalkValues } from './lib/ussd-flows/walk.js';

// The server's configuration, as `npm start` reads it: its port, public address, operator token and the
// aggregator's secret.
readDotEnv();
const DEFAULT_URL = process.env['PUBLIC_BASE_URL'] || `http://localhost:${process.env['PORT'] || '3000'}`;
/** Sent as the aggregator sends it (docs/ussd-gateway.md, "Who may call it"), when the server wants one. */
const AGGREGATOR_SECRET = process.env['USSD_AGGREGATOR_SECRET'] || undefined;
const NEW_ACCOUNT = { name: 'Simulator User', pin: '13579' };

const USAGE = `Usage: npm run ussd -- [--url ${DEFAULT_URL}] [--phone +254712345678] [--code *384*123#]
                      [--session <id>] [--form] [--login [C12345678:24680]] [--lang sw]
                      [--record test/flows/<name>.yaml [--description "what it shows"]]

A terminal phone for a running USSD gateway. It talks to the server over HTTP exactly as a telecom
gateway does: it dials, then sends each line you type as the next input, accumulating the text with *,
and prints every screen. It stops on an END reply. Lines can also be piped in:
  printf '1\\n0\\n*\\n' | npm run ussd

  --url      the gateway's base URL (default ${DEFAULT_URL}: PUBLIC_BASE_URL or PORT of the
             environment or .env, as npm start reads them); start one first with: npm start
  --phone    the caller's number (default: a fresh number each run, with no account and no language of
             its own, as every recorded flow starts when replayed); give one to call as a known phone
  --form     post form-encoded bodies, as Africa's Talking does (default JSON)
  --login    start logged in: with C…:PIN as that account; alone, as a new account of this phone
             (${NEW_ACCOUNT.name}, PIN ${NEW_ACCOUNT.pin}), created through the menus in a session of its own.
             Leaves you at the top menu, logged in ("You are logged in." above it)
  --lang     switch to this language first (it is the account's, so it needs --login): Services, Language,
             then back; leaves you at the top menu, logged in, in that language
  --record   write the session as a recorded flow (format: docs/menus.md), customer IDs as {placeholders},
             the --login and --lang steps included; check it with: npm run test:flows
  --login and --lang type their way through the menus and ask the operator endpoint
  /api/ussd/debug where the session is (loopback, or OPERATOR_TOKEN in the environment or .env).
  With USSD_AGGREGATOR_SECRET in the environment or .env, every request carries it, as the aggregator's do.
  Commands:  /redial  start a new session    /quit  leave`;

/** `--login` with no value means a new account: parseArgs needs a value, so one is given here. */
const argv = process.argv.slice(2).flatMap((arg, i, all) => {
  const next = all[i + 1];
  return arg === '--login' && (next === undefined || next.startsWith('--')) ? [arg, 'new'] : [arg];
});
const { values: opts } = parseArgs({
  args: argv,
  options: {
    url: { type: 'string' },
    phone: { type: 'string' },
    code: { type: 'string', default: '*384*123#' },
    session: { type: 'string' },
    form: { type: 'boolean', default: false },
    login: { type: 'string' },
    lang: { type: 'string' },
    record: { type: 'string' },
    description: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

// The simulator is a client only: it never opens the database (./data/pglite) or any server code. It reads
// the compiled menus (generated/menus.ts) only to find its way for --login and --lang.
const baseUrl = opts.url ?? DEFAULT_URL;
// A fresh number unless one is given: a phone used before brings its account and language into the
// session (the dial is in the account's language, Log in offers its account), which a replay, on a fresh
// number, would not see.
const phone = opts.phone ?? `+2547${String(randomInt(1e8)).padStart(8, '0')}`;

/** Thrown when nothing answers at the URL: the user is told how to start a server. */
class NoServerError extends Error {
  override name = 'NoServerError';
}
class UsageError extends Error {
  override name = 'UsageError';
}

const newSessionId = (): string => `sim-${randomBytes(4).toString('hex')}`;

/** One session on the phone: its id, the inputs so far, and its label in a recorded flow. */
interface Session {
  id: string;
  inputs: string[];
  label: string;
}

/** Posts a session's accumulated text; returns the reply, or throws on anything but HTTP 200. */
async function post(session: Session): Promise<string> {
  const fields = {
    sessionId: session.id,
    serviceCode: opts.code,
    phoneNumber: phone,
    text: session.inputs.join('*'),
  };
  let res: Response;
  try {
    res = await fetch(new URL('/api/ussd', baseUrl), {
      method: 'POST',
      headers: {
        'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
        ...(AGGREGATOR_SECRET === undefined ? {} : { authorization: `Bearer ${AGGREGATOR_SECRET}` }),
      },
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
  if (res.status === 401) {
    throw new Error(
      'the gateway answered 401: set USSD_AGGREGATOR_SECRET (in the environment or .env) as the server has it',
    );
  }
  if (res.status === 403) {
    throw new Error(
      'the gateway answered 403: this address is not in its USSD_AGGREGATOR_ALLOWLIST (run the simulator from an allowed address)',
    );
  }
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
  return text;
}

/** Where a session is, from the operator endpoint (spec A3). */
async function whereIs(session: Session): Promise<{ state: string; isAuthenticated: boolean }> {
  const token = process.env['OPERATOR_TOKEN'];
  const res = await fetch(new URL(`/api/ussd/debug/${encodeURIComponent(session.id)}`, baseUrl), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) {
    throw new Error(
      `--login and --lang ask ${baseUrl}/api/ussd/debug where the session is, which answered ${res.status}: ` +
        'run the simulator on the server’s machine, or set OPERATOR_TOKEN as the server has it',
    );
  }
  const body = (await res.json()) as { debugInfo: { state: string; context: { isAuthenticated: boolean } } };
  return { state: body.debugInfo.state, isAuthenticated: body.debugInfo.context.isAuthenticated };
}

/** Prints a reply as a phone screen; returns true when the session ended. */
function show(reply: string): boolean {
  const kind = reply.slice(0, 3);
  console.log(
    `\n+---------------------------------------- ${kind}\n| ${reply.slice(4).split('\n').join('\n| ')}\n+----------------------------------------`,
  );
  return kind !== 'CON';
}

// --- recording -----------------------------------------------------------------------------------------

const notIds = idLikeWords(menuTexts(menuTree));
const recorded: { session: string; text: string; reply: string }[] = [];
const accounts: FlowFile['accounts'] = [];
const vars = new Map<string, string>();

/** Sends the session's text, prints the reply (and the input, when piped or automatic), and records it. */
async function send(session: Session, echo: string | undefined): Promise<{ reply: string; ended: boolean }> {
  if (echo !== undefined) console.log(`> ${echo}`);
  const reply = await post(session);
  if (opts.record !== undefined)
    recorded.push({ session: session.label, text: session.inputs.join('*'), reply });
  return { reply, ended: show(reply) };
}

async function writeRecording(file: string): Promise<void> {
  const steps = recorded.map(({ session, text, reply }) => {
    for (const id of newIds(reply, vars, notIds)) vars.set(freshName(new Set(vars.keys())), id);
    return { session, phone: 'caller', text: templateOf(text, vars), expect: templateOf(reply, vars) };
  });
  if (steps.length === 0) return;
  await writeFlow(file, {
    description: opts.description ?? 'Recorded with npm run ussd -- --record (say here what it shows)',
    accounts,
    steps,
  });
  console.log(`Recorded ${steps.length} steps in ${file}; check them with: npm run test:flows`);
}

// --- --login and --lang ----------------------------------------------------------------------------------

/** Types the inputs the menus need to reach `goal`, asking the gateway where the session is after each. */
async function walk(session: Session, goal: WalkGoal, values: WalkValues, quiet: boolean): Promise<string> {
  let reply = '';
  const avoid = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const { state, isAuthenticated } = await whereIs(session);
    // "Use account C…" of a phone bound to another account would log in to that one.
    if (values.customerId !== undefined && !reply.includes(values.customerId)) avoid.add('useBoundAccount');
    else avoid.delete('useBoundAccount');
    const last = finishAt(menuTree, state, goal, values);
    const input = last ?? nextInput(menuTree, state, isAuthenticated, goal, values, avoid);
    if (input === undefined)
      throw new UsageError(`the menus have no way from ${state} to ${JSON.stringify(goal)}`);
    session.inputs.push(input);
    if (quiet) reply = await post(session);
    else {
      const sent = await send(session, input);
      reply = sent.reply;
      if (sent.ended) throw new Error('the session ended on the way');
    }
    if (last !== undefined) return reply;
  }
  throw new Error(`no way to ${JSON.stringify(goal)} in 20 inputs`);
}

/** Creates an account of this phone through the menus, in a session of its own; returns its customer ID. */
async function createAccount(): Promise<string> {
  const setup: Session = { id: newSessionId(), inputs: [], label: 'setup' };
  await post(setup);
  const reply = await walk(
    setup,
    { kind: 'input-action', action: 'createAccount' },
    { fullName: NEW_ACCOUNT.name, pin: NEW_ACCOUNT.pin },
    true,
  );
  const id = newIds(reply, new Map(), notIds)[0];
  if (id === undefined) throw new Error(`no customer ID in the reply to the new account: ${reply}`);
  setup.inputs.push('');
  await post(setup); // `*`: ends the setup session
  console.log(`Created account ${id} (${NEW_ACCOUNT.name}, PIN ${NEW_ACCOUNT.pin}) for ${phone}`);
  return id;
}

/** Logs the session in (as --login says) and switches its language (--lang). */
async function prepare(session: Session): Promise<void> {
  if (opts.lang !== undefined && opts.login === undefined)
    throw new UsageError('--lang needs --login: the language is the account’s (Services → Language)');
  if (opts.lang !== undefined && !(opts.lang in menuTree.languages))
    throw new UsageError(
      `--lang ${opts.lang}: the menus are in ${Object.keys(menuTree.languages).join(', ')}`,
    );
  if (opts.login === undefined) return;
  let customerId: string;
  let pin: string;
  if (opts.login === 'new') {
    customerId = await createAccount();
    pin = NEW_ACCOUNT.pin;
    vars.set('me', customerId);
    accounts.push({ ref: 'me', name: NEW_ACCOUNT.name, pin, phone: 'caller' });
  } else {
    const match = /^(C[0-9A-Za-z]{8}):(\d{5})$/.exec(opts.login);
    if (!match)
      throw new UsageError(
        '--login takes C12345678:24680 (customer ID and PIN), or nothing for a new account',
      );
    if (opts.record !== undefined)
      throw new UsageError(
        'a recorded flow must run on an empty database: use --login alone (a new account) with --record',
      );
    customerId = (match[1] ?? '').toUpperCase();
    pin = match[2] ?? '';
  }
  await walk(
    session,
    { kind: 'input-action', action: 'verifyPin' },
    { fullName: NEW_ACCOUNT.name, pin, customerId },
    false,
  );
  if (!(await whereIs(session)).isAuthenticated) throw new Error(`could not log in as ${customerId}`);
  if (opts.lang === undefined) return;
  await walk(
    session,
    { kind: 'option', action: 'setLanguage', value: opts.lang },
    { fullName: NEW_ACCOUNT.name, pin },
    false,
  );
  // Back to the top menu, where --login alone leaves you too.
  for (let i = 0; i < 5 && (await whereIs(session)).state !== menuTree.start; i++) {
    session.inputs.push('0');
    if ((await send(session, '0')).ended) throw new Error('the session ended on the way back');
  }
}

// --- the phone ------------------------------------------------------------------------------------------

const interactive = process.stdin.isTTY;
const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
// Created before the first await, so piped lines that arrive while the dial is in flight are not lost.
const lines = rl[Symbol.asyncIterator]();
let exitCode = 0;
let redials = 0;
try {
  const session: Session = { id: opts.session ?? newSessionId(), inputs: [], label: 'main' };
  console.log(
    `Dialling ${opts.code} from ${phone}${opts.phone === undefined ? ' (a fresh number)' : ''} (session ${session.id}) at ${baseUrl}`,
  );
  if (opts.record !== undefined && opts.phone !== undefined)
    console.log(
      `Recording as ${phone}: the flow replays on a fresh number, so what this phone brings (an account, a language) must not show in it`,
    );
  let ended = (await send(session, undefined)).ended;
  if (!ended) await prepare(session);
  while (!ended) {
    if (interactive) rl.prompt();
    const next = await lines.next();
    if (next.done === true) break;
    const line = next.value.trim();
    if (line === '/quit') break;
    if (line === '/redial') {
      redials++;
      session.id = newSessionId();
      session.inputs = [];
      session.label = redials === 1 ? 'again' : `again${redials}`;
      ended = (await send(session, undefined)).ended;
    } else if (line !== '') {
      session.inputs.push(line);
      ended = (await send(session, interactive ? undefined : line)).ended;
    }
  }
  console.log(ended ? '(session ended)' : '(input ended; the session stays open until it expires)');
} catch (err) {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  rl.close();
}
if (opts.record !== undefined) await writeRecording(opts.record);
process.exit(exitCode);
