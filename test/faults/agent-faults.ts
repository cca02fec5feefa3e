/**
 * The agent service's part of the fault suite (run by run-faults.ts after the USSD part).
 *
 * Two production-mode instances of the server (oracle part only) on a PostgreSQL and a redis-server of the
 * suite's own; chat users spread over both stream long answers at the scripted model's pace, tool users run
 * browser-tool turns answered by their tab's socket. One fault a phase: Redis killed and restarted,
 * PostgreSQL paused (SIGSTOP) for 5 s, PostgreSQL stopped and restarted, SIGKILL of an instance running turns,
 * SIGTERM (drain) of an instance while it streams, a tab's socket dropped while its browser tool call is
 * pending, SIGKILL of the instance whose turns wait for their users' approval (approval-faults.ts). Each turn is checked: it ends (`done`), re-joining through `GET /runs/:runId?after=N` on any
 * instance when its stream drops; the text the client assembled is the answer stored in history; no 5xx
 * other than a draining instance's 503s and the documented 503 `unavailable` while a dependency is down;
 * a vanished tab's tool ends as a tool error within the tool timeout; recovery within 2 s of a dependency's
 * return; no run left in flight; `/health` honest throughout.
 */
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { longText } from '../../server/oracle/models/scripted-rules.js';
import { freePort, startPrivateRedis } from '../helpers/private-redis.js';
import { newUser, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { newOracleKey } from '../helpers/oracle/oracle-app.js';
import { connectSocket, type TestSocket } from '../helpers/oracle/socket-client.js';
import { assembledText, readSse, type SseEvent } from '../helpers/oracle/sse.js';
import { APPROVAL_TOOL, runApprovalPhase } from './approval-faults.js';
import { createSession } from './create-session.js';
import { startPrivatePostgres } from './private-postgres.js';
import { ServerProcess } from './server-process.js';

/** `--agent-phases=redis,pause,stop,kill,term,tab,approvals` runs only those phases (all by default). */
const PHASES = new Set(
  (
    process.argv.find((a) => a.startsWith('--agent-phases='))?.slice('--agent-phases='.length) ??
    'redis,pause,stop,kill,term,tab,approvals'
  ).split(','),
);
const CHAT_USERS = Number(process.env['FAULTS_AGENT_USERS'] ?? 20);
const TOOL_USERS = 4;
/** A client whose stream dropped must be streaming again (re-joined) within this. */
const REJOIN_MS = 10_000;
/** Service back within this of a dependency's return. */
const RECOVERY_MS = 2000;
const LEASE_SECONDS = 2;
const TOOL_TIMEOUT_MS = 3000;
const DRAIN_TIMEOUT_MS = 5000;
/** `/health` gives up on a dependency after 2 s: an answer begun later than this into an outage must say so. */
const HEALTH_GRACE_MS = 2500;
const LONG = 'write a long story';
const FULL = longText(400);
const READ_TITLE = {
  name: 'read_page_title',
  description: "Reads the title of the user's page.",
  schema: { type: 'object', properties: {} },
};

/** One HTTP answer a client got (or the connection error), for the 5xx and health checks. */
interface Answer {
  at: number;
  instance: number;
  what: string;
  status: number | string;
  code?: string | undefined;
}

interface Turn {
  user: number;
  kind: 'chat' | 'tool';
  phase: string;
  startedAt: number;
  endedAt: number;
  runId: string;
  requestId: string;
  events: SseEvent[];
  /** When each of `events` arrived. */
  arrivals: number[];
  /** Event ids seen more than once (the server promises none). */
  repeatedIds: number;
  rejoins: number;
  /** Longest wait between two events the client received (drops and re-joins included). */
  maxGapMs: number;
  ended: boolean;
  /** The tab dropped its socket instead of answering the browser tool call, at this time. */
  tabDroppedAt: number | undefined;
}

/** Words of `a` missing from `b` and words of `b` not in `a` (as multisets). */
function wordDiff(stored: string, seen: string): { lost: number; doubled: number } {
  const count = new Map<string, number>();
  for (const w of stored.split(/\s+/).filter(Boolean)) count.set(w, (count.get(w) ?? 0) + 1);
  let doubled = 0;
  for (const w of seen.split(/\s+/).filter(Boolean)) {
    const n = count.get(w) ?? 0;
    if (n > 0) count.set(w, n - 1);
    else doubled++;
  }
  let lost = 0;
  for (const n of count.values()) lost += n;
  return { lost, doubled };
}

/** GET on a fresh connection: status and JSON body, or the connection error's code. */
function getJson(
  port: number,
  urlPath: string,
  timeoutMs = 4000,
): Promise<{ status: number; body: Record<string, unknown> } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: urlPath, agent: false, timeout: timeoutMs },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'CLIENT_TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

function errorCode(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err instanceof Error ? err.name : String(err));
}

export interface AgentRow {
  phase: string;
  turns: number;
  ended: number;
  rejoined: number;
  lost: number;
  doubled: number;
  maxGapMs: number;
  refused503: number;
  recovery: string;
}

export interface AgentResult {
  rows: AgentRow[];
  failures: string[];
  notes: string[];
  summary: string;
}

export class Cluster {
  readonly instances: ServerProcess[] = [];
  /** When each instance was last told to stop (SIGTERM): its 503s from then on are a drain's. */
  readonly drainingSince: (number | undefined)[] = [];
  readonly down: boolean[] = [];

  port(i: number): number {
    return (this.instances[i] as ServerProcess).port;
  }

  /** The instance a client uses: its home one when it is up, else another. */
  pick(home: number): number {
    if (!this.down[home]) return home;
    const other = this.instances.findIndex((_, i) => !this.down[i]);
    return other < 0 ? home : other;
  }
}

class AgentLoad {
  phase = 'warm-up';
  running = true;
  /** Tool users' tabs drop their socket when a call comes (the vanished-tab phase). */
  dropTabs = false;
  readonly turns: Turn[] = [];
  readonly answers: Answer[] = [];
  private loops: Promise<void>[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly users: { user: OracleUser; sessionId: string; home: number }[],
  ) {}

  private record(instance: number, what: string, status: number | string, code?: string): void {
    this.answers.push({ at: Date.now(), instance, what, status, code });
  }

  /** Reads a stream's events into the turn; returns how it stopped. */
  private async read(turn: Turn, body: ReadableStream<Uint8Array>, since: { at: number }): Promise<boolean> {
    let done = false;
    const seen = new Set(turn.events.map((e) => e.id));
    await readSse(body, (event) => {
      const now = Date.now();
      turn.maxGapMs = Math.max(turn.maxGapMs, now - since.at);
      since.at = now;
      if (event.id !== undefined && seen.has(event.id)) {
        turn.repeatedIds++;
        return false;
      }
      if (event.id !== undefined) seen.add(event.id);
      turn.events.push(event);
      turn.arrivals.push(now);
      if (event.event === 'done') done = true;
      return done;
    });
    return done;
  }

  /** One turn: the streamed message, then re-joins on any instance until `done` (or 60 s). */
  private async turn(index: number, kind: 'chat' | 'tool', tab: TabHolder | undefined): Promise<void> {
    const u = this.users[index];
    if (!u) return;
    const turn: Turn = {
      user: index,
      kind,
      phase: this.phase,
      startedAt: Date.now(),
      endedAt: 0,
      runId: '',
      requestId: '',
      events: [],
      arrivals: [],
      repeatedIds: 0,
      rejoins: 0,
      maxGapMs: 0,
      ended: false,
      tabDroppedAt: undefined,
    };
    if (tab) tab.turn = turn;
    const body =
      kind === 'chat'
        ? { message: LONG, stream: true }
        : { message: 'use read_page_title', tools: [READ_TITLE], stream: true };
    // Until the turn is accepted: a refusal (a dependency down, an instance gone) is retried, as clients do.
    let response: Response | undefined;
    let instance = this.cluster.pick(u.home);
    while (this.running) {
      instance = this.cluster.pick(u.home);
      // A time limit on the answer's headers only: the stream itself lasts as long as the turn.
      const headersWithin = new AbortController();
      const timer = setTimeout(() => headersWithin.abort(), 5000);
      try {
        const r = await fetch(`http://127.0.0.1:${this.cluster.port(instance)}/messages/${u.sessionId}`, {
          method: 'POST',
          headers: { ...u.user.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: headersWithin.signal,
        }).finally(() => clearTimeout(timer));
        if (r.ok && r.body) {
          this.record(instance, 'message', r.status);
          response = r;
          break;
        }
        const text = await r.text().catch(() => '');
        const code = /"code":"([^"]+)"/.exec(text)?.[1];
        this.record(instance, 'message', r.status, code);
      } catch (err) {
        this.record(instance, 'message', errorCode(err));
      }
      await sleep(250);
    }
    if (!response?.body) return;
    this.turns.push(turn);
    turn.startedAt = Date.now();
    turn.phase = this.phase;
    turn.runId = response.headers.get('x-run-id') ?? '';
    turn.requestId = response.headers.get('x-request-id') ?? '';
    const since = { at: turn.startedAt };
    let done = await this.read(turn, response.body, since);
    const deadline = Date.now() + 60_000;
    let attempt = 0;
    while (!done && Date.now() < deadline) {
      // Re-join on the other instance first (the one that dropped it may be gone), then alternate.
      let joined = false;
      while (!joined && Date.now() < deadline) {
        const target = (u.home + 1 + attempt++) % this.cluster.instances.length;
        const last = turn.events.at(-1)?.id ?? 0;
        try {
          const r = await fetch(
            `http://127.0.0.1:${this.cluster.port(target)}/runs/${turn.runId}?after=${last}`,
            { headers: u.user.headers },
          );
          if (r.ok) this.record(target, 'rejoin', r.status);
          if (r.ok && r.body) {
            joined = true;
            turn.rejoins++;
            done = await this.read(turn, r.body, since);
          } else {
            const text = await r.text().catch(() => '');
            this.record(target, 'rejoin', r.status, /"code":"([^"]+)"/.exec(text)?.[1]);
          }
        } catch (err) {
          this.record(target, 'rejoin', errorCode(err));
        }
        if (!joined) await sleep(200);
      }
    }
    turn.ended = done;
    turn.endedAt = Date.now();
  }

  start(): void {
    this.users.forEach((u, index) => {
      const kind = index < CHAT_USERS ? 'chat' : 'tool';
      this.loops.push(
        (async () => {
          const tab = kind === 'tool' ? new TabHolder(this, this.cluster, u) : undefined;
          if (tab) await tab.connect();
          // Spread the starts over a second so the streams do not march in step.
          await sleep(Math.random() * 1000);
          while (this.running) {
            await this.turn(index, kind, tab);
            await sleep(kind === 'chat' ? 100 : 500);
          }
          tab?.close();
        })(),
      );
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  noteTab(instance: number, status: string): void {
    this.record(instance, 'socket', status);
  }
}

/** A tool user's browser tab: a socket on the session that answers browser tool calls, reconnecting when cut. */
class TabHolder {
  socket: TestSocket | undefined;
  turn: Turn | undefined;
  private closed = false;
  constructor(
    private readonly load: AgentLoad,
    private readonly cluster: Cluster,
    private readonly u: { user: OracleUser; sessionId: string; home: number },
  ) {}

  async connect(): Promise<void> {
    while (!this.closed) {
      const instance = this.cluster.pick(this.u.home);
      try {
        const tab = await connectSocket(
          `http://127.0.0.1:${this.cluster.port(instance)}`,
          this.u.user,
          this.u.sessionId,
        );
        this.socket = tab;
        tab.socket.on('browser_tool_call', (call: { toolCallId: string }) => {
          if (this.load.dropTabs) {
            // The tab vanishes with the call pending; it comes back after the tool timeout.
            if (this.turn) this.turn.tabDroppedAt = Date.now();
            tab.close();
            return;
          }
          setTimeout(() => {
            tab.socket.emit('tool_result', { toolCallId: call.toolCallId, result: { title: 'Fault page' } });
          }, 100);
        });
        tab.socket.once('disconnect', () => {
          if (this.closed) return;
          const wait = this.load.dropTabs ? TOOL_TIMEOUT_MS + 500 : 300;
          setTimeout(() => void this.connect(), wait);
        });
        return;
      } catch (err) {
        this.load.noteTab(instance, errorCode(err));
        await sleep(300);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.socket?.close();
  }
}

/** Polls `/health` of every instance. */
class HealthWatch {
  readonly samples: {
    startedAt: number;
    at: number;
    instance: number;
    status: number | string;
    state: string;
    /** What the answer said of each dependency (e.g. `database disconnected`), for a failure's message. */
    detail: string;
  }[] = [];
  private running = true;
  private loop: Promise<void> | undefined;
  constructor(private readonly cluster: Cluster) {}

  start(): void {
    this.loop = (async () => {
      while (this.running) {
        await Promise.all(
          this.cluster.instances.map(async (s, instance) => {
            const startedAt = Date.now();
            const r = await getJson(s.port, '/health', 4000);
            this.samples.push({
              startedAt,
              at: Date.now(),
              instance,
              status: 'error' in r ? r.error : r.status,
              state: 'error' in r ? '' : typeof r.body['status'] === 'string' ? r.body['status'] : '',
              detail:
                'error' in r
                  ? ''
                  : ['database', 'redis']
                      .filter((k) => typeof r.body[k] === 'string')
                      .map((k) => `${k} ${String(r.body[k])}`)
                      .join(', '),
            });
          }),
        );
        await sleep(200);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** New streamed turns on every live instance until each streams text; the time from `since`. */
async function recovery(
  cluster: Cluster,
  probes: { user: OracleUser; sessionId: string }[],
  since: number,
  notes: string[],
): Promise<number> {
  await Promise.all(
    cluster.instances.map(async (s, i) => {
      const probe = probes[i];
      if (!probe || cluster.down[i]) return;
      let last = '';
      while (Date.now() - since < 30_000) {
        last = await fetch(`http://127.0.0.1:${s.port}/messages/${probe.sessionId}`, {
          method: 'POST',
          headers: { ...probe.user.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hello', stream: true }),
          signal: AbortSignal.timeout(3000),
        })
          .then(async (r) => {
            if (!r.ok || !r.body) return `${r.status} ${(await r.text()).slice(0, 120)}`;
            // Served: the turn's text is flowing.
            const { events } = await readSse(r.body, (e) => e.event === 'message' || e.event === 'done');
            return events.at(-1)?.event === 'message' ? '200 ' : `200 without text: ${events.at(-1)?.event}`;
          })
          .catch((err: unknown) => errorCode(err));
        if (last.startsWith('200 ')) return;
        await sleep(50);
      }
      notes.push(`recovery probe on instance ${i} still failing after 30 s: ${last}`);
    }),
  );
  return Date.now() - since;
}

interface Phase {
  name: string;
  /** When the fault began and when the dependency or instance came back. */
  faultAt: number;
  backAt: number | undefined;
  /** When bringing the dependency back began (it may answer before the command that starts it returns). */
  restoringAt?: number;
  recoveryMs: number | undefined;
  figure: string;
  /** 503s from these instances' outage window are a dependency's (documented), not a failure. */
  dependency: boolean;
}

export async function runAgentFaults(work: string, log: NodeJS.WritableStream): Promise<AgentResult> {
  const failures: string[] = [];
  const notes: string[] = [];
  const phases: Phase[] = [];
  const postgres = await startPrivatePostgres();
  const redis = await startPrivateRedis();
  const cluster = new Cluster();
  const signingKey = await newOracleKey();
  for (const name of ['a', 'b']) {
    const port = await freePort();
    cluster.instances.push(
      new ServerProcess(
        port,
        {
          NODE_ENV: 'production',
          PORT: String(port),
          HOST: '127.0.0.1',
          INSTANCE_ID: `agent-${name}`,
          DATABASE_URL: postgres.url,
          REDIS_URL: redis.url,
          ENABLED_PARTS: 'oracle',
          CHAIN_GRPC_URL: 'fixture',
          ORACLE_SIGNING_KEY: signingKey,
          ORACLE_CORS_ORIGINS: 'http://localhost',
          ORACLE_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
          ORACLE_TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
          ORACLE_TURNS_PER_MINUTE: '0',
          ORACLE_MAX_CONCURRENT_RUNS: '0',
          // The approvals phase: the memory plugin's tool waits for its user's decision.
          ORACLE_FEATURES: 'memory',
          ORACLE_TOOLS_NEED_APPROVAL: APPROVAL_TOOL,
          DATA_DIR: path.join(work, `agent-${name}`),
          LOG_LEVEL: 'warn',
          DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
        },
        log,
      ),
    );
    cluster.drainingSince.push(undefined);
    cluster.down.push(false);
  }
  const health = new HealthWatch(cluster);
  let load: AgentLoad | undefined;
  const started = Date.now();
  try {
    // One after the other: the first runs the migrations.
    const ready: number[] = [];
    for (const s of cluster.instances) ready.push(await s.start());
    const config = (await (await fetch(`http://127.0.0.1:${cluster.port(0)}/config`)).json()) as {
      did: string;
    };
    const users = await Promise.all(
      Array.from({ length: CHAT_USERS + TOOL_USERS }, async (_, i) => {
        const user = await newUser(config.did);
        const home = i % 2;
        return { user, home, sessionId: await createSession(`http://127.0.0.1:${cluster.port(home)}`, user) };
      }),
    );
    const probes = await Promise.all(
      cluster.instances.map(async (s) => {
        const user = await newUser(config.did);
        return { user, sessionId: await createSession(`http://127.0.0.1:${s.port}`, user) };
      }),
    );
    health.start();
    load = new AgentLoad(cluster, users);
    load.start();
    const begin = (name: string, dependency: boolean): Phase => {
      const phase: Phase = {
        name,
        faultAt: 0,
        backAt: undefined,
        recoveryMs: undefined,
        figure: '',
        dependency,
      };
      phases.push(phase);
      (load as AgentLoad).phase = name;
      return phase;
    };
    const warm = begin('warm-up', false);
    warm.faultAt = Date.now();
    warm.figure = `instances ready in ${ready.join(' and ')} ms`;
    await sleep(4000);

    const dependencyPhase = async (
      name: string,
      fault: () => Promise<void>,
      downMs: number,
      back: () => Promise<void>,
    ): Promise<void> => {
      const phase = begin(name, true);
      await sleep(1500);
      phase.faultAt = Date.now();
      await fault();
      await sleep(downMs);
      phase.restoringAt = Date.now();
      await back();
      phase.backAt = Date.now();
      phase.recoveryMs = await recovery(cluster, probes, phase.backAt, notes);
      phase.figure = `recovery ${phase.recoveryMs} ms`;
      if (phase.recoveryMs > RECOVERY_MS)
        failures.push(`${name}: recovery took ${phase.recoveryMs} ms (> ${RECOVERY_MS})`);
      await sleep(3000);
    };
    if (PHASES.has('redis'))
      await dependencyPhase(
        'redis killed',
        () => redis.kill(),
        3000,
        () => redis.start(),
      );
    if (PHASES.has('pause'))
      await dependencyPhase(
        'postgres paused 5 s',
        () => postgres.pause(),
        5000,
        () => postgres.resume(),
      );
    if (PHASES.has('stop'))
      await dependencyPhase(
        'postgres stopped',
        () => postgres.stop(),
        3000,
        () => postgres.start(),
      );

    if (PHASES.has('kill')) {
      const phase = begin('instance SIGKILL', false);
      await sleep(1500);
      phase.faultAt = Date.now();
      cluster.down[1] = true;
      await cluster.instances[1]?.signal('SIGKILL');
      // Its clients re-join on the other instance, which claims its runs once their leases expire.
      await sleep(LEASE_SECONDS * 1000 + 3000);
      const restart = (await cluster.instances[1]?.start()) ?? 0;
      cluster.down[1] = false;
      phase.backAt = Date.now();
      phase.figure = `restarted, healthy in ${restart} ms`;
      await sleep(3000);
    }
    if (PHASES.has('term')) {
      const phase = begin('instance SIGTERM', false);
      await sleep(1500);
      phase.faultAt = Date.now();
      cluster.drainingSince[0] = Date.now();
      const signalled = cluster.instances[0]?.signal('SIGTERM');
      // New turns go to the other instance as soon as /health says draining (a balancer's view).
      cluster.down[0] = true;
      const exitMs = (await signalled) ?? 0;
      const code = cluster.instances[0]?.child?.exitCode;
      if (code !== 0) failures.push(`instance SIGTERM: exit code ${code}`);
      if (exitMs > DRAIN_TIMEOUT_MS + 5000) failures.push(`instance SIGTERM: exit took ${exitMs} ms`);
      const restart = (await cluster.instances[0]?.start()) ?? 0;
      cluster.down[0] = false;
      cluster.drainingSince[0] = undefined;
      phase.backAt = Date.now();
      phase.figure = `exit ${code} in ${exitMs} ms, restarted in ${restart} ms`;
      await sleep(3000);
    }
    if (PHASES.has('tab')) {
      const phase = begin('tab dropped', false);
      await sleep(500);
      phase.faultAt = Date.now();
      load.dropTabs = true;
      await sleep(TOOL_TIMEOUT_MS + 2500);
      load.dropTabs = false;
      phase.backAt = Date.now();
      await sleep(1500);
    }
    if (PHASES.has('approvals')) {
      const phase = begin('approvals SIGKILL', false);
      await sleep(500);
      const result = await runApprovalPhase(cluster, config.did, postgres.url, () => {
        phase.faultAt = Date.now();
      });
      failures.push(...result.failures);
      notes.push(...result.notes);
      phase.backAt = Date.now();
      phase.figure = result.figure;
      await sleep(1500);
    }
    load.phase = 'end';
    await load.stop();
    // Runs whose clients left are still finishing: wait for them (their stream ended long before).
    const settle = Date.now();
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      let inFlight: { run_id: string; status: string }[] = [];
      for (;;) {
        inFlight = (
          await client.query<{ run_id: string; status: string }>(
            "select run_id, status from oracle_runs where status in ('running', 'recovering')",
          )
        ).rows;
        if (inFlight.length === 0 || Date.now() - settle > 15_000) break;
        await sleep(250);
      }
      if (inFlight.length)
        failures.push(
          `${inFlight.length} run(s) still in flight at the end: ${inFlight
            .slice(0, 3)
            .map((r) => `${r.run_id} ${r.status}`)
            .join(', ')}`,
        );
      const ids = load.turns.map((t) => t.requestId);
      const stored = new Map(
        (
          await client.query<{ id: string; content: string }>(
            "select id, content from oracle_messages where type = 'ai' and id = any($1)",
            [ids],
          )
        ).rows.map((r) => [r.id, r.content]),
      );
      const runs = new Map(
        (
          await client.query<{ run_id: string; status: string }>(
            'select run_id, status from oracle_runs where run_id = any($1)',
            [load.turns.map((t) => t.runId)],
          )
        ).rows.map((r) => [r.run_id, r.status]),
      );
      return {
        ...report(load, health, cluster, phases, stored, runs, failures, notes),
        failures,
        notes,
        summary:
          `${CHAT_USERS} chat users (400-word answers at the scripted model's 15 ms a word) and ${TOOL_USERS} ` +
          `browser-tool users over 2 production instances (lease ${LEASE_SECONDS} s, tool timeout ` +
          `${TOOL_TIMEOUT_MS} ms), agent phases ${((Date.now() - started) / 1000).toFixed(0)} s`,
      };
    } finally {
      await client.end();
    }
  } catch (err) {
    failures.push(`agent suite error: ${err instanceof Error ? err.stack : String(err)}`);
    return { rows: [], failures, notes, summary: '' };
  } finally {
    if (load) load.running = false;
    await health.stop();
    await Promise.all(cluster.instances.map((s) => s.signal('SIGKILL').catch(() => undefined)));
    await redis.close();
    await postgres.destroy();
  }
}

function report(
  load: AgentLoad,
  health: HealthWatch,
  cluster: Cluster,
  phases: Phase[],
  stored: Map<string, string>,
  runs: Map<string, string>,
  failures: string[],
  notes: string[],
): { rows: AgentRow[] } {
  // A turn belongs to the phase whose fault it was in flight at, else to the phase it began in.
  for (const t of load.turns) {
    const hit = phases.find((p) => p.faultAt > 0 && t.startedAt <= p.faultAt && p.faultAt <= t.endedAt);
    if (hit) t.phase = hit.name;
  }
  const rows: AgentRow[] = [];
  for (const phase of phases) {
    const turns = load.turns.filter((t) => t.phase === phase.name);
    let lost = 0;
    let doubled = 0;
    let mismatches = 0;
    /** For each browser tool call whose tab vanished: ms from the drop to the tool error. */
    const vanished: number[] = [];
    for (const t of turns) {
      const done = t.events.at(-1);
      if (!t.ended || done?.event !== 'done') {
        failures.push(`${phase.name}: turn ${t.runId} (user ${t.user}) never saw done`);
        continue;
      }
      const status = (done.data as { status: string }).status;
      const seen = assembledText(t.events);
      const answer = stored.get(t.requestId) ?? '';
      const diff = wordDiff(answer, seen);
      lost += diff.lost;
      doubled += diff.doubled;
      if (seen !== answer && mismatches++ < 2)
        notes.push(
          `mismatch ${t.runId}: client ${JSON.stringify(seen.slice(-160))} stored ${JSON.stringify(answer.slice(-160))}`,
        );
      if (seen !== answer) {
        failures.push(
          `${phase.name}: turn ${t.runId} (${t.kind}, ${status}): the client assembled ${seen.length} chars, ` +
            `history has ${answer.length} (${diff.lost} words lost, ${diff.doubled} doubled)`,
        );
      }
      if (t.kind === 'chat' && status === 'finished' && answer !== FULL)
        failures.push(`${phase.name}: turn ${t.runId} finished but its stored answer is not the full text`);
      if (t.repeatedIds)
        failures.push(`${phase.name}: turn ${t.runId}: ${t.repeatedIds} event ids delivered twice`);
      if (t.maxGapMs > REJOIN_MS)
        failures.push(`${phase.name}: turn ${t.runId}: ${t.maxGapMs} ms without an event (> ${REJOIN_MS})`);
      const runStatus = runs.get(t.runId);
      if (runStatus !== status)
        failures.push(`${phase.name}: turn ${t.runId}: done says ${status}, the run is ${runStatus}`);
      if (t.tabDroppedAt !== undefined) {
        const index = t.events.findIndex(
          (e) => e.event === 'tool_call' && (e.data as { status: string }).status === 'error',
        );
        const after = (t.arrivals[index] ?? Number.POSITIVE_INFINITY) - t.tabDroppedAt;
        vanished.push(after);
        if (index < 0)
          failures.push(`${phase.name}: turn ${t.runId}: the vanished tab's tool did not end as an error`);
        else if (after > TOOL_TIMEOUT_MS + 1000)
          failures.push(
            `${phase.name}: turn ${t.runId}: the vanished tab's tool error came ${after} ms after (timeout ${TOOL_TIMEOUT_MS} ms)`,
          );
      }
    }
    // 5xx answers: a draining instance's 503s and a dependency's documented 503 `unavailable` while it is
    // down (and until the recovery probe passed) are expected; anything else fails.
    const end = phases[phases.indexOf(phase) + 1]?.faultAt ?? Number.POSITIVE_INFINITY;
    const answers = load.answers.filter((a) => a.at >= phase.faultAt && a.at < end);
    let refused503 = 0;
    for (const a of answers) {
      if (typeof a.status !== 'number' || a.status < 500) continue;
      const draining = cluster.drainingSince[a.instance];
      const outage =
        phase.dependency &&
        a.status === 503 &&
        a.code === 'unavailable' &&
        a.at <= (phase.backAt ?? 0) + (phase.recoveryMs ?? 0) + 500;
      const drain = a.status === 503 && phase.name === 'instance SIGTERM' && a.instance === 0;
      if (outage || drain || draining !== undefined) refused503++;
      else
        failures.push(
          `${phase.name}: ${a.what} answered ${a.status} ${a.code ?? ''} at instance ${a.instance}`,
        );
    }
    // Health honesty: ok while up; not ok once a dependency has been down for the health check's grace.
    const samples = health.samples.filter((h) => h.startedAt >= phase.faultAt && h.startedAt < end);
    for (const h of samples) {
      const outage = phase.backAt !== undefined && h.startedAt >= phase.faultAt && h.startedAt < phase.backAt;
      // Begun and answered while the dependency was still away (a check answered once it is back may say ok).
      const surelyDown =
        phase.restoringAt !== undefined &&
        h.startedAt >= phase.faultAt &&
        h.startedAt < phase.restoringAt &&
        h.at < phase.restoringAt;
      if (phase.dependency && surelyDown && h.startedAt > phase.faultAt + HEALTH_GRACE_MS && h.status === 200)
        failures.push(
          `${phase.name}: /health of instance ${h.instance} said ok ${h.startedAt - phase.faultAt} ms into the outage`,
        );
      const afterRecovery =
        !phase.dependency ||
        phase.backAt === undefined ||
        h.startedAt > phase.backAt + (phase.recoveryMs ?? 0);
      // Begun in this phase but answered once the next phase's fault had begun (a check asked a few ms before
      // Redis was killed answers "redis disconnected"): it tells of that fault, not of this phase.
      const answeredInNextFault = h.at >= end;
      if (
        afterRecovery &&
        !outage &&
        !answeredInNextFault &&
        h.status !== 200 &&
        typeof h.status === 'number'
      ) {
        const termAt = phases.find((p) => p.name === 'instance SIGTERM')?.faultAt ?? Number.POSITIVE_INFINITY;
        // Answered after the SIGTERM (a check begun just before it may be answered after it).
        const draining = h.state === 'draining' && h.instance === 0 && h.at >= termAt;
        if (!draining)
          failures.push(
            `${phase.name}: /health of instance ${h.instance} said ${h.status} ${h.state} (${h.detail}) while up, ` +
              `${h.at - h.startedAt} ms after it was asked`,
          );
      }
    }
    if (phase.dependency)
      for (let i = 0; i < cluster.instances.length; i++) {
        const said = samples.some((h) => h.instance === i && h.status === 503 && h.state === 'error');
        if (!said) failures.push(`${phase.name}: /health of instance ${i} never said 503 during the outage`);
      }
    const row: AgentRow = {
      phase: phase.name,
      turns: turns.length,
      ended: turns.filter((t) => t.ended).length,
      rejoined: turns.filter((t) => t.rejoins > 0).length,
      lost,
      doubled,
      maxGapMs: turns.reduce((m, t) => Math.max(m, t.maxGapMs), 0),
      refused503,
      recovery: phase.recoveryMs !== undefined ? `${phase.recoveryMs} ms` : phase.figure,
    };
    if (phase.recoveryMs !== undefined && phase.figure) row.recovery = phase.figure;
    if (vanished.length)
      row.recovery = `${vanished.length} tool calls whose tab vanished: tool error after ≤ ${Math.max(...vanished)} ms (timeout ${TOOL_TIMEOUT_MS} ms)`;
    if (phase.name === 'tab dropped' && vanished.length === 0)
      failures.push(
        'tab dropped: no browser tool call was pending when a tab vanished (the phase tested nothing)',
      );
    rows.push(row);
    const statuses = new Map<string, number>();
    for (const t of turns) {
      const s = (t.events.at(-1)?.data as { status?: string } | undefined)?.status ?? 'none';
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    const answerCounts = new Map<string, number>();
    for (const a of answers) {
      if (a.status === 200) continue;
      const key = `${a.what} ${a.status}${a.code ? ` ${a.code}` : ''}`;
      answerCounts.set(key, (answerCounts.get(key) ?? 0) + 1);
    }
    notes.push(
      `${phase.name}: ${[...statuses].map(([s, n]) => `${n} ${s}`).join(', ')}; ` +
        `${[...answerCounts].map(([k, n]) => `${n}× ${k}`).join(', ') || 'no refusals'}`,
    );
  }
  return { rows };
}

/** The agent table as Markdown lines. */
export function agentTableLines(rows: AgentRow[]): string[] {
  const head = [
    'phase',
    'turns',
    'ended',
    're-joined',
    'lost/doubled words',
    'max gap ms',
    '503s',
    'recovery',
  ];
  const cells = rows.map((r) =>
    [
      r.phase,
      r.turns,
      r.ended,
      r.rejoined,
      `${r.lost}/${r.doubled}`,
      r.maxGapMs,
      r.refused503,
      r.recovery,
    ].map(String),
  );
  const line = (c: string[]): string => `| ${c.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...cells.map(line)];
}
