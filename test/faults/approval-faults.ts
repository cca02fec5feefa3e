/**
 * The agent fault suite's approvals phase (issue 37 item 3), run by agent-faults.ts on its two instances.
 *
 * Users homed on instance 1 each start a turn whose tool call waits for their approval (`remember_fact`, listed
 * in ORACLE_TOOLS_NEED_APPROVAL; the scripted model calls it for `use remember_fact with {json}`). Before the
 * fault, one more user's call gets two racing decisions, one on each instance: exactly one 200, the other 409
 * `approval_already_decided`. Then instance 1 is SIGKILLed with every other call still pending, and the
 * decisions go to the survivor: half right after the kill (before the survivor has claimed the run), half once
 * the client, re-joined on the survivor with `GET /runs/:runId?after=N`, sees the run resumed there; every
 * other user approves, the others deny. Each turn must end `finished` on the survivor: approved, the tool ran
 * exactly once (one fact stored); denied, it did not run, the model read the declined result (with the
 * reason, fenced) and history's tool call says `denied`. What the client assembled from its two streams is
 * exactly the run's log (same ids, events and payloads), its ids growing by one within each attempt with
 * nothing repeated, and its text is the answer in history.
 */
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { deniedText } from '../../server/oracle/runtime/approval-gate.js';
import { firstIdOfAttempt, IDS_PER_ATTEMPT } from '../../server/oracle/runs/event-log.js';
import { newUser, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { createSession } from './create-session.js';
import { assembledText, readSse, type SseEvent } from '../helpers/oracle/sse.js';
import type { Cluster } from './agent-faults.js';

/** The tool whose calls wait for approval in the suite's instances (ORACLE_TOOLS_NEED_APPROVAL). */
export const APPROVAL_TOOL = 'remember_fact';
const APPROVAL_USERS = Number(process.env['FAULTS_APPROVAL_USERS'] ?? 8);
/** The instance killed (the users' home) and the survivor. */
const KILLED = 1;
const SURVIVOR = 0;
/** Every turn ends within this of the kill (the lease is 2 s; a sweep every second). */
const END_WITHIN_MS = 30_000;

interface ApprovalTurn {
  label: string;
  user: OracleUser;
  sessionId: string;
  fact: string;
  runId: string;
  /** Every event the client read, in order, over the message's stream and its re-joins (repeats kept). */
  events: SseEvent[];
  rejoins: number;
  ended: boolean;
  endedAt: number;
  /** The approval was requested (the call waits). */
  requested: Promise<string>;
}

interface Decision {
  approve: boolean;
  reason: string | undefined;
  /** Posted right after the kill (before the survivor claimed the run), else once the run resumed there. */
  early: boolean;
  status: number | string;
  code: string | undefined;
}

export interface ApprovalPhaseResult {
  figure: string;
  failures: string[];
  notes: string[];
}

const base = (cluster: Cluster, i: number): string => `http://127.0.0.1:${cluster.port(i)}`;

/** Reads a stream into the turn until `done` (true) or until it ends or drops (false). */
async function readInto(
  turn: ApprovalTurn,
  body: ReadableStream<Uint8Array>,
  onEvent?: (event: SseEvent) => void,
): Promise<boolean> {
  let done = false;
  await readSse(body, (event) => {
    turn.events.push(event);
    onEvent?.(event);
    done = event.event === 'done';
    return done;
  });
  return done;
}

/** Starts the turn on `instance`; resolves once its call waits for approval, then reads on in the background. */
async function startTurn(
  cluster: Cluster,
  instance: number,
  label: string,
  did: string,
): Promise<{ turn: ApprovalTurn; first: Promise<boolean> }> {
  const user = await newUser(did);
  const sessionId = await createSession(base(cluster, instance), user);
  const fact = `Fault suite fact of ${label}`;
  let requested = (_toolCallId: string): void => undefined;
  const turn: ApprovalTurn = {
    label,
    user,
    sessionId,
    fact,
    runId: '',
    events: [],
    rejoins: 0,
    ended: false,
    endedAt: 0,
    requested: new Promise<string>((resolve) => (requested = resolve)),
  };
  // The documented 503 `unavailable` (a busy database pool on a loaded machine) is retried, as clients do.
  let r: Response | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    r = await fetch(`${base(cluster, instance)}/messages/${sessionId}`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        message: `use ${APPROVAL_TOOL} with ${JSON.stringify({ content: fact })}`,
        stream: true,
      }),
    });
    if (r.status !== 503) break;
    await r.body?.cancel();
    await sleep(250);
  }
  if (!r?.ok || !r.body) throw new Error(`${label}: POST /messages answered ${r?.status}`);
  turn.runId = r.headers.get('x-run-id') ?? '';
  const first = readInto(turn, r.body, (event) => {
    if (event.event === 'tool_approval_requested')
      requested((event.data as { toolCallId: string }).toolCallId);
  });
  return { turn, first };
}

async function decide(
  cluster: Cluster,
  instance: number,
  turn: ApprovalTurn,
  toolCallId: string,
  approve: boolean,
  reason: string | undefined,
  retry503 = false,
): Promise<{ status: number | string; code: string | undefined; retried: boolean }> {
  let retried = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await fetch(
        `${base(cluster, instance)}/sessions/${turn.sessionId}/tool-approvals/${toolCallId}`,
        {
          method: 'POST',
          headers: { ...turn.user.headers, 'content-type': 'application/json' },
          body: JSON.stringify(approve ? { approved: true } : { approved: false, reason }),
          signal: AbortSignal.timeout(5000),
        },
      );
      const text = await r.text();
      const code = /"code":"([^"]+)"/.exec(text)?.[1];
      if (r.status === 503 && retry503 && attempt < 20) {
        // Unavailable (the database too busy to answer): asked again, as a client would.
        retried = true;
        await sleep(250);
        continue;
      }
      return { status: r.status, code, retried };
    } catch (err) {
      return { status: err instanceof Error ? err.name : String(err), code: undefined, retried };
    }
  }
}

/** The turn's own ending: events as the run's log holds them, read whole on the survivor. */
async function logOf(cluster: Cluster, turn: ApprovalTurn): Promise<SseEvent[]> {
  const r = await fetch(`${base(cluster, SURVIVOR)}/runs/${turn.runId}?after=0`, {
    headers: turn.user.headers,
    signal: AbortSignal.timeout(5000),
  });
  if (!r.ok || !r.body) return [];
  return (await readSse(r.body, (e) => e.event === 'done')).events;
}

/** Ids: present, growing by one within an attempt, each attempt starting at its first id; `undefined` when so. */
function idProblem(events: SseEvent[], attempts: number): string | undefined {
  const seen = new Set<number>();
  let previous: number | undefined;
  for (const e of events) {
    if (e.id === undefined) return `${e.event} without an id`;
    if (seen.has(e.id)) return `id ${e.id} delivered twice`;
    seen.add(e.id);
    const attempt = Math.floor(e.id / IDS_PER_ATTEMPT);
    const expected =
      previous !== undefined && Math.floor(previous / IDS_PER_ATTEMPT) === attempt
        ? previous + 1
        : firstIdOfAttempt(attempt);
    if (e.id !== expected) return `id ${e.id} after ${previous ?? 'none'} (expected ${expected})`;
    previous = e.id;
  }
  const used = new Set(events.map((e) => Math.floor((e.id ?? 0) / IDS_PER_ATTEMPT)));
  // The first attempt is 0 (ids from 1); a takeover is the next.
  if (
    !isDeepStrictEqual(
      [...used],
      Array.from({ length: attempts }, (_, i) => i),
    )
  )
    return `attempts ${[...used].join(', ')} (expected 0 to ${attempts - 1})`;
  return undefined;
}

const payloads = (events: SseEvent[], name: string): Record<string, unknown>[] =>
  events.filter((e) => e.event === name).map((e) => e.data as Record<string, unknown>);

/**
 * Checks a turn that ended: its events, its record in history and the tool's effect. `attempts` is 2 for a run
 * taken over by the survivor, 1 for one that never lost its instance. Answers whether the survivor found the
 * call still pending when it took the run over (it asks again; a call decided before finds it decided).
 */
async function checkTurn(
  cluster: Cluster,
  db: pg.Client,
  turn: ApprovalTurn,
  decision: { approve: boolean; reason: string | undefined; early?: boolean },
  attempts: number,
  failures: string[],
): Promise<boolean> {
  const fail = (what: string): void => {
    failures.push(`approvals: ${turn.label} (run ${turn.runId}): ${what}`);
  };
  const done = payloads(turn.events, 'done');
  if (!turn.ended || !isDeepStrictEqual(done, [{ status: 'finished' }])) {
    fail(`did not end finished (done ${JSON.stringify(done)})`);
    return false;
  }
  const ids = idProblem(turn.events, attempts);
  if (ids) fail(`events: ${ids}`);
  const log = await logOf(cluster, turn);
  if (!isDeepStrictEqual(log, turn.events))
    fail(`the client's events (${turn.events.length}) are not the run's log (${log.length})`);
  // What happened, by event name (text deltas aside): requested; taken over (`run` again, and requested again
  // when still pending: always for a decision posted once the run resumed); decided; the call.
  const names = turn.events.filter((e) => e.event !== 'message').map((e) => e.event);
  const pendingAtTakeover =
    attempts === 2 &&
    (decision.early !== true || names.filter((n) => n === 'tool_approval_requested').length === 2);
  const takeover = attempts === 2 ? ['run', ...(pendingAtTakeover ? ['tool_approval_requested'] : [])] : [];
  const expectedNames = [
    'run',
    'tool_approval_requested',
    ...takeover,
    'tool_approval_decided',
    ...(decision.approve ? ['tool_call', 'tool_call'] : ['tool_call']),
    'done',
  ];
  if (!isDeepStrictEqual(names, expectedNames)) fail(`events ${names.join(', ')}`);
  if (attempts === 2 && payloads(turn.events, 'run')[1]?.['resumed'] !== true)
    fail('the second run event does not say resumed');
  const decided = payloads(turn.events, 'tool_approval_decided')[0];
  if (
    decided?.['approved'] !== decision.approve ||
    decided['decidedBy'] !== turn.user.did ||
    decided['reason'] !== decision.reason
  )
    fail(`tool_approval_decided ${JSON.stringify(decided)}`);
  const calls = payloads(turn.events, 'tool_call').map((p) => p['status']);
  const text = assembledText(turn.events);
  if (decision.approve && !isDeepStrictEqual(calls, ['isRunning', 'done']))
    fail(`tool_call ${calls.join(', ')}`);
  if (!decision.approve) {
    if (!isDeepStrictEqual(calls, ['denied'])) fail(`tool_call ${calls.join(', ')}`);
    // The scripted model answers with the tool result it read: the declined text, its reason fenced.
    if (!text.includes(`returned: Error: ${deniedText(APPROVAL_TOOL, decision.reason, true)}`))
      fail(`the model did not read the declined result: ${JSON.stringify(text.slice(-200))}`);
  }
  const facts = (
    await db.query<{ content: string }>('select content from memories where user_did = $1', [turn.user.did])
  ).rows.map((r) => r.content);
  const expectedFacts = decision.approve ? [turn.fact] : [];
  if (!isDeepStrictEqual(facts, expectedFacts))
    fail(`the tool's facts are ${JSON.stringify(facts)} (expected ${JSON.stringify(expectedFacts)})`);
  const history = await fetch(`${base(cluster, SURVIVOR)}/messages/${turn.sessionId}`, {
    headers: turn.user.headers,
  });
  const messages = ((await history.json()) as { messages?: Record<string, unknown>[] }).messages ?? [];
  const ai = messages.find((m) => m['type'] === 'ai');
  const call = (ai?.['toolCalls'] as Record<string, unknown>[] | undefined)?.[0];
  const approval = call?.['approval'] as Record<string, unknown> | undefined;
  if (ai?.['content'] !== text) fail('history has another answer than the client assembled');
  if (
    call?.['status'] !== (decision.approve ? 'done' : 'denied') ||
    approval?.['approved'] !== decision.approve ||
    approval['decidedBy'] !== turn.user.did ||
    approval['reason'] !== decision.reason
  )
    fail(`history's tool call ${JSON.stringify(call)}`);
  const run = (
    await db.query<{ status: string; attempt: number }>(
      'select status, attempt from oracle_runs where run_id = $1',
      [turn.runId],
    )
  ).rows[0];
  // The row counts claims: a survivor whose renewal came late claims its own run again (and goes on with it).
  if (run?.status !== 'finished' || run.attempt < attempts)
    fail(`the run is ${run?.status} at attempt ${run?.attempt} (expected finished, at least ${attempts})`);
  return pendingAtTakeover;
}

/**
 * The phase: pending approvals through a SIGKILL of their instance (see the file's comment). `killed` is called
 * at the kill; instance 1 is running again when it resolves.
 */
export async function runApprovalPhase(
  cluster: Cluster,
  did: string,
  databaseUrl: string,
  killed: () => void,
): Promise<ApprovalPhaseResult> {
  const failures: string[] = [];
  const notes: string[] = [];
  // The race: two decisions at once, one on each instance, while both are up.
  const phaseStarted = Date.now();
  const race = await startTurn(cluster, KILLED, 'race user', did);
  const started = await Promise.all(
    Array.from({ length: APPROVAL_USERS }, (_, i) => startTurn(cluster, KILLED, `user ${i}`, did)),
  );
  const raceCall = await race.turn.requested;
  const raced = await Promise.all([
    decide(cluster, SURVIVOR, race.turn, raceCall, true, undefined),
    decide(cluster, KILLED, race.turn, raceCall, false, 'the other tab said no'),
  ]);
  race.turn.ended = await race.first;
  race.turn.endedAt = Date.now();
  const statuses = raced.map((r) => r.status);
  const winner = raced.findIndex((r) => r.status === 200);
  const loser = raced[1 - winner];
  if (winner < 0 || loser?.status !== 409 || loser.code !== 'approval_already_decided')
    failures.push(
      `approvals: two racing decisions answered ${raced.map((r) => `${r.status} ${r.code ?? ''}`).join(' and ')} (expected one 200, one 409 approval_already_decided)`,
    );

  const calls = await Promise.all(
    started.map(({ turn }) =>
      Promise.race([turn.requested, sleep(15_000).then(() => '')]).then((id) => {
        if (!id) throw new Error(`${turn.label}: no tool_approval_requested within 15 s`);
        return id;
      }),
    ),
  );
  const decisions: Decision[] = started.map((_, i) => ({
    approve: i % 2 === 0,
    reason: i % 2 === 0 ? undefined : `user ${i} changed their mind`,
    early: i % 4 < 2,
    status: 'not posted',
    code: undefined,
  }));

  const killedAt = Date.now();
  killed();
  cluster.down[KILLED] = true;
  await cluster.instances[KILLED]?.signal('SIGKILL');
  const post = async (i: number): Promise<void> => {
    const turn = started[i]?.turn;
    const d = decisions[i];
    const call = calls[i];
    if (!turn || !d || !call) return;
    const answer = await decide(cluster, SURVIVOR, turn, call, d.approve, d.reason, true);
    // A retried decision whose first try landed after all answers 409: the turn's check says which one won.
    const landed = answer.retried && answer.status === 409 && answer.code === 'approval_already_decided';
    Object.assign(d, { status: landed ? 200 : answer.status, code: answer.code });
  };
  const early = decisions.flatMap((d, i) => (d.early ? [post(i)] : []));
  const late: Promise<void>[] = [];
  await Promise.all(
    started.map(async ({ turn, first }, i) => {
      let done = await first;
      const deadline = killedAt + END_WITHIN_MS;
      while (!done && Date.now() < deadline) {
        const after = turn.events.at(-1)?.id ?? 0;
        const r = await fetch(`${base(cluster, SURVIVOR)}/runs/${turn.runId}?after=${after}`, {
          headers: turn.user.headers,
        }).catch(() => undefined);
        if (!r?.ok || !r.body) {
          notes.push(`approvals: ${turn.label}: re-join answered ${r?.status ?? 'no connection'}; again`);
          await sleep(200);
          continue;
        }
        turn.rejoins++;
        done = await readInto(turn, r.body, (event) => {
          const resumed = event.event === 'run' && (event.data as { resumed?: boolean }).resumed === true;
          if (resumed && decisions[i]?.early === false && decisions[i]?.status === 'not posted') {
            decisions[i].status = 'posting';
            late.push(post(i));
          }
        });
      }
      turn.ended = done;
      turn.endedAt = Date.now();
    }),
  );
  await Promise.all([...early, ...late]);
  // Back while the turns are checked (on the survivor and the database only).
  const restarting = cluster.instances[KILLED]?.start().then(
    (ms) => {
      cluster.down[KILLED] = false;
      return ms;
    },
    (err: unknown) => {
      failures.push(`approvals: instance ${KILLED} did not start again: ${String(err)}`);
      return 0;
    },
  );

  let decidedBeforeTakeover = 0;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    decisions.forEach((d, i) => {
      if (d.status !== 200)
        failures.push(
          `approvals: user ${i}'s ${d.early ? 'early' : 'late'} decision answered ${d.status} ${d.code ?? ''}`,
        );
    });
    if (winner >= 0)
      await checkTurn(
        cluster,
        db,
        race.turn,
        winner === 0
          ? { approve: true, reason: undefined }
          : { approve: false, reason: 'the other tab said no' },
        1,
        failures,
      );
    for (const [i, { turn }] of started.entries()) {
      const d = decisions[i] as Decision;
      if (d.early && !(await checkTurn(cluster, db, turn, d, 2, failures))) decidedBeforeTakeover++;
      if (!d.early) await checkTurn(cluster, db, turn, d, 2, failures);
      if (turn.rejoins === 0) failures.push(`approvals: ${turn.label}: the client never re-joined`);
    }
  } finally {
    await db.end();
  }
  const restart = (await restarting) ?? 0;
  if (decidedBeforeTakeover === 0)
    failures.push(
      'approvals: no decision landed before the survivor took its run over (that path went untested)',
    );
  const approved = decisions.filter((d) => d.approve).length;
  const slowest = Math.max(...started.map(({ turn }) => turn.endedAt - killedAt));
  return {
    figure:
      `${decisions.length} pending approvals through the SIGKILL: ${approved} approved, ` +
      `${decisions.length - approved} denied on the survivor (${decidedBeforeTakeover} before it took the run over), all ended ` +
      `≤ ${slowest} ms after the kill; racing decisions ${[...statuses].sort().join('/')}; restarted in ${restart} ms; phase ${((Date.now() - phaseStarted) / 1000).toFixed(0)} s`,
    failures,
    notes,
  };
}
