// `npm run test:flows`: replays every recorded flow (test/flows/*.yaml) on the menu engine over menus/ and
// the real action handlers (accounts in memory), shows each reply that differs, and lists the screens,
// ends and actions no flow reaches. `-- --update` records the replies of the current menus into the
// flows instead and shows the diff of each file it changed (review it, then commit). Names of flows
// (file names without .yaml) limit the run to them. Exit status 1 when a flow differs or something is not
// reached (without --update). The suite (`npm test`, test/ussd/scenarios/flows.test.ts) runs the same flows on the
// database and over HTTP too.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { menuTree } from '../../generated/menus.js';
import type { LanguageCode } from '../../server/ussd/accounts/accounts.js';
import { flowYaml, loadFlows, writeFlow } from '../../scripts/tools/lib/ussd-flows/flow-file.js';
import { idLikeWords } from '../../scripts/tools/lib/ussd-flows/flow-template.js';
import { replayFlow, type FlowTarget } from '../../scripts/tools/lib/ussd-flows/replay.js';
import { engineDialer } from '../helpers/engine-dialer.js';
import { menuTexts, unreached } from '../../scripts/tools/lib/ussd-flows/coverage.js';

const { values: opts, positionals } = parseArgs({
  options: {
    update: { type: 'boolean', default: false },
    dir: { type: 'string', default: 'test/flows' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowPositionals: true,
});
if (opts.help) {
  console.log('Usage: npm run test:flows [-- [--update] [--dir test/flows] [flow-name ...]]');
  process.exit(0);
}

const dialer = engineDialer({ tree: menuTree });
const target: FlowTarget = {
  send: ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber }),
  createAccount: async ({ name, email, pin, phoneNumber, language }) =>
    (
      await dialer.accounts.createCustomer({
        fullName: name,
        email: email ?? null,
        pin,
        phoneNumber,
        language: (language ?? menuTree.defaultLanguage) as LanguageCode,
      })
    ).customerId,
  notIds: idLikeWords(menuTexts(menuTree)),
};

/** A unified diff of two texts (Debian's diff), labelled with the flow's file. */
async function diff(file: string, before: string, after: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'flow-diff-'));
  try {
    await writeFile(path.join(dir, 'a'), before);
    await writeFile(path.join(dir, 'b'), after);
    execFileSync('diff', ['-u', '--label', `${file} (recorded)`, '--label', `${file} (now)`, 'a', 'b'], {
      cwd: dir,
      encoding: 'utf8',
    });
    return '';
  } catch (err) {
    return (err as { stdout?: string }).stdout ?? String(err);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const flows = await loadFlows(opts.dir, positionals);
let passed = 0;
let failed = 0;
for (const flow of flows) {
  const replay = await replayFlow(flow, target);
  const differing = replay.steps.filter((s) => s.expected !== s.actual);
  if (replay.ok) {
    passed++;
    console.log(`✓ ${flow.name} (${flow.steps.length} steps)`);
    continue;
  }
  if (opts.update) {
    const before = flowYaml(flow);
    const after = flowYaml(replay.recorded);
    await writeFlow(flow.file, replay.recorded);
    passed++;
    console.log(
      `↻ ${flow.name}: recorded ${differing.length} new repl${differing.length === 1 ? 'y' : 'ies'}`,
    );
    process.stdout.write(await diff(flow.file, before, after));
    continue;
  }
  failed++;
  console.log(`✗ ${flow.name}: ${differing.length} of ${flow.steps.length} replies differ`);
  for (const s of differing) {
    console.log(
      `  text ${JSON.stringify(s.text)}${s.step.session === 'main' ? '' : ` (session ${s.step.session})`}`,
    );
    for (const line of s.expected.split('\n')) console.log(`  - ${line}`);
    for (const line of s.actual.split('\n')) console.log(`  + ${line}`);
  }
}

const missing = positionals.length === 0 ? unreached(menuTree, dialer.logs) : [];
if (missing.length > 0) {
  failed++;
  console.log(
    `\nNo flow reaches: ${missing.join(', ')}.\nRecord one with \`npm run ussd -- --record test/flows/<name>.yaml\` (with \`npm start\` running).`,
  );
} else if (positionals.length === 0) {
  console.log('\nEvery screen, end and action of the menus is reached by a flow.');
}
if (failed > 0 && !opts.update && flows.length > passed)
  console.log(
    'Run `npm run test:flows -- --update` to record the replies of the menus as they are now, and review the diff.',
  );
console.log(`\n${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
