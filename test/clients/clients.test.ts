import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { shippedReplies } from '../helpers/shipped-menus.js';
import {
  documentFor,
  OPERATOR_TOKEN,
  planFor,
  RATE_LIMIT,
  rateLimitPlan,
  type ClientPlan,
  type OpenApiDocument,
} from '../helpers/clients/client-plan.js';

// Clients in other languages, built from the OpenAPI document, against a live server (issue 14 item 6).
// Each runs when its interpreter and Debian packages are here and is skipped with the reason otherwise,
// except in CI (CI set, as .ci/run does), where a missing one fails.

const here = path.dirname(fileURLToPath(import.meta.url));
const inCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');

/** A client in another language: how to check it can run and how to run it. */
interface ForeignClient {
  name: string;
  command: string;
  script: string;
  /** Exits 0 when the interpreter and its packages are present. */
  probe: string[];
  packages: string;
  /** Adds the agent service's and the system's tokenless routes to the calls. */
  tokenless: boolean;
}

// Debian's python3-jsonschema lives in /usr/bin/python3's dist-packages, which a python3 first on PATH
// (e.g. pyenv's) does not see: the sweep runs with Debian's interpreter by its path.
const CLIENTS: ForeignClient[] = [
  {
    name: 'perl',
    command: 'perl',
    script: path.join(here, 'perl/openapi-client.pl'),
    probe: ['-MOpenAPI::Client', '-e1'],
    packages: 'libopenapi-client-perl',
    tokenless: false,
  },
  {
    name: 'python',
    command: '/usr/bin/python3',
    script: path.join(here, 'python/openapi-sweep.py'),
    probe: [
      '-c',
      'import jsonschema, os, sys; sys.exit(not os.path.exists("/usr/share/openapi-specification/schemas/v3.0/schema.json"))',
    ],
    packages: 'python3-jsonschema openapi-specification',
    tokenless: true,
  },
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program without blocking the event loop (the server under test lives in this process). */
function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr: stderr || (err?.message ?? '') });
    });
  });
}

/** One call as a client reports it. */
interface CallResult {
  label: string;
  operationId: string;
  status?: number;
  contentType?: string;
  text?: string;
  errors: string[];
}

/** The JSON summary both clients print. */
interface Summary {
  client: string;
  documentErrors?: string[];
  closed: number;
  operations: string[];
  results: CallResult[];
  uncovered: string[];
  passed: number;
  failed: number;
}

/** operationIds of the document's operations on the plan's covered paths, sorted. */
function coveredOperations(document: OpenApiDocument, plan: ClientPlan): string[] {
  const covered = (p: string): boolean =>
    plan.cover.some((e) => (e.endsWith('*') ? p.startsWith(e.slice(0, -1)) : p === e));
  return Object.entries(document.paths)
    .filter(([p]) => covered(p))
    .flatMap(([, item]) => Object.values(item).map((op) => op?.operationId))
    .filter((id): id is string => id !== undefined)
    .sort();
}

/** A copy of the document that the server does not match in three ways the clients must each report. */
function brokenDocument(document: OpenApiDocument): OpenApiDocument {
  const broken = structuredClone(document) as OpenApiDocument & { paths: Record<string, Record<string, Op>> };
  const ok = (p: string, m: string): Record<string, Media> => {
    const content = broken.paths[p]?.[m]?.responses['200']?.content;
    if (content === undefined) throw new Error(`${m} ${p} documents no 200 content`);
    return content;
  };
  // An undocumented field: the 200 of EntityVerified no longer names entity_verified.
  delete ok('/ixo/entity/{id}/verified', 'get')['application/json']?.schema.properties?.['entity_verified'];
  // An undocumented status: Claim no longer documents 404.
  delete broken.paths['/ixo/claims/claim/{id}']?.['get']?.responses['404'];
  // An undocumented content type: the USSD reply documented as text/html instead of text/plain.
  const ussd = ok('/api/ussd', 'post');
  ussd['text/html'] = ussd['text/plain'] as Media;
  delete ussd['text/plain'];
  return broken;
}

interface Media {
  schema: { properties?: Record<string, unknown> };
}
interface Op {
  responses: Record<string, { content?: Record<string, Media> } | undefined>;
}

/** The calls of the plan that {@link brokenDocument} makes fail. */
const BROKEN_CALLS = ['ussd.session dial', 'ussd.session navigate', 'EntityVerified', 'Claim not found'];

let app: TestApp;
let dir: string;
let document: OpenApiDocument;
beforeAll(async () => {
  app = await startTestApp({ env: { USSD_RATE_LIMIT_PER_MINUTE: '0', OPERATOR_TOKEN } });
  dir = await mkdtemp(path.join(tmpdir(), 'clients-'));
  document = await documentFor(app);
});
afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each(CLIENTS)('the $name client, built from the OpenAPI document', (client) => {
  /** False (with the reason printed) when the client cannot run here; in CI that is a failure. */
  async function available(): Promise<boolean> {
    if ((await run(client.command, client.probe)).code === 0) return true;
    const reason = `${client.command} with ${client.packages} is not available (apt-get install ${client.packages})`;
    if (inCi) throw new Error(`CI: ${reason}`);
    console.warn(`skipped: the ${client.name} client: ${reason}`);
    return false;
  }

  /** Runs the client on `doc` and the plan; returns its summary and exit code. */
  async function runClient(
    doc: OpenApiDocument,
    plan: ClientPlan,
    name: string,
  ): Promise<{ summary: Summary; code: number }> {
    const documentFile = path.join(dir, `${client.name}-${name}.json`);
    const planFile = path.join(dir, `${client.name}-${name}-plan.json`);
    await writeFile(documentFile, JSON.stringify(doc));
    await writeFile(planFile, JSON.stringify(plan));
    const result = await run(client.command, [client.script, documentFile, planFile]);
    try {
      return { summary: JSON.parse(result.stdout) as Summary, code: result.code };
    } catch {
      throw new Error(`the ${client.name} client printed no summary (exit ${result.code}): ${result.stderr}`);
    }
  }

  it('calls every operation of its paths on the live server, each response as documented', async (ctx) => {
    if (!(await available())) return ctx.skip();
    const plan = await planFor(app, { tokenless: client.tokenless });
    const { summary, code } = await runClient(document, plan, 'document');

    expect(summary.operations).toEqual(coveredOperations(document, plan));
    expect(summary.uncovered).toEqual([]);
    expect(summary.documentErrors ?? []).toEqual([]);
    expect(summary.results.map(({ label, status, errors }) => ({ label, status, errors }))).toEqual(
      plan.calls.map(({ label, expectStatus }) => ({ label, status: expectStatus, errors: [] })),
    );
    const texts = summary.results.filter((r) => r.operationId === 'ussd.session').map((r) => r.text);
    expect(texts).toEqual([(await shippedReplies(''))[0], expect.stringMatching(/^CON /)]);
    // Object schemas were closed, so an undocumented field would have failed a call.
    expect(summary.closed).toBeGreaterThan(0);
    expect({ exit: code, failed: summary.failed, passed: summary.passed }).toEqual({
      exit: 0,
      failed: 0,
      passed: plan.calls.length,
    });
  });

  it('fails on a document the server does not match: an undocumented field, status or content type', async (ctx) => {
    if (!(await available())) return ctx.skip();
    const plan = await planFor(app, { tokenless: client.tokenless });
    const { summary, code } = await runClient(brokenDocument(document), plan, 'broken');

    const failing = summary.results.filter((r) => r.errors.length > 0);
    expect(failing.map((r) => ({ label: r.label, errors: r.errors.length }))).toEqual(
      BROKEN_CALLS.map((label) => ({ label, errors: 1 })),
    );
    const [dial, , verified, claim] = failing.map((r) => r.errors[0]);
    expect([dial, verified, claim]).toEqual([
      expect.stringMatching(/content type 'text\/plain; charset=utf-8' is not documented/),
      expect.stringMatching(/entity_verified/),
      expect.stringMatching(/status 404 is not documented/),
    ]);
    expect({ exit: code, failed: summary.failed }).toEqual({ exit: 1, failed: BROKEN_CALLS.length });
  });

  it('gets the documented 429 of POST /api/ussd past the rate limit', async (ctx) => {
    if (!(await available())) return ctx.skip();
    await using limited = await startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) },
    });
    const plan = rateLimitPlan();
    const { summary, code } = await runClient(await documentFor(limited), plan, 'rate-limit');

    expect(
      summary.results.map(({ label, status, contentType, errors }) => ({
        label,
        status,
        contentType,
        errors,
      })),
    ).toEqual(
      plan.calls.map(({ label, expectStatus }) => ({
        label,
        status: expectStatus,
        contentType: expectStatus === 200 ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
        errors: [],
      })),
    );
    expect({ exit: code, failed: summary.failed }).toEqual({ exit: 0, failed: 0 });
  });
});
