import { z } from 'zod';
import type { ChatModel, ModelRequest } from '../../../server/oracle/models/model.js';
import type { ModelRegistry } from '../../../server/oracle/models/registry.js';
import { definePlugin, type OraclePlugin } from '../../../server/oracle/runtime/plugin.js';
import { defineTool } from '../../../server/oracle/runtime/tools.js';

/** What the test plugins did, in order. */
export type PluginLog = string[];

/**
 * A small plugin that contributes one of everything a plugin can: tools (one that adds, one that throws, one
 * that renders a component), a sub-agent, middleware, an HTTP module, shared state, runtime state, a prompt
 * section, setup/teardown and health.
 */
export function testKitPlugin(log: PluginLog, options: { degraded?: boolean } = {}): OraclePlugin {
  const shared = { turns: 0 };
  return definePlugin({
    manifest: {
      name: 'test-kit',
      title: 'Test kit',
      summary: 'Adds numbers, fails on purpose and shows charts.',
      visibility: 'always',
      stability: 'experimental',
      category: 'automation',
      defaultOn: true,
      dependsOn: [],
      requiredEnv: [],
    },
    tools: [
      defineTool({
        name: 'add_numbers',
        description: 'Adds two numbers a and b.',
        parameters: z.object({ a: z.number(), b: z.number() }).strict(),
        handler: ({ a, b }) => Promise.resolve(a + b),
      }),
      defineTool({
        name: 'explode',
        description: 'Always fails.',
        parameters: z.object({}).passthrough(),
        handler: () => Promise.reject(new Error('the explode tool blew up')),
      }),
      defineTool({
        name: 'show_chart',
        description: 'Shows a chart of the given values.',
        parameters: z.object({ values: z.string().default('1,2,3') }),
        handler: ({ values }, ctx) => {
          ctx.renderComponent('Chart', { values: values.split(',').map(Number) });
          return Promise.resolve({ shown: true });
        },
      }),
    ],
    subAgents: [
      {
        name: 'summarizer',
        description: 'Summarizes a text.',
        prompt: 'You are the summarizer sub-agent. Answer with one short sentence.',
      },
    ],
    middleware: [
      (_req, res, next) => {
        res.setHeader('x-test-kit', res.locals.auth?.userDid ?? 'anonymous');
        next();
      },
    ],
    httpModules: [
      {
        name: 'TestKitHttpModule',
        paths: ['/test-kit'],
        register(router, { requireCaller }) {
          router.get('/test-kit/whoami', requireCaller, (_req, res) => {
            res.json({ userDid: res.locals.auth?.userDid, turns: shared.turns });
          });
        },
      },
    ],
    sharedState: () => shared,
    enrichState: (state, turn) => {
      shared.turns += 1;
      state['testKit'] = { room: turn.roomId, turns: shared.turns };
      return Promise.resolve();
    },
    promptSection: (state) => ({
      title: 'Test kit',
      body: `The room is ${(state['testKit'] as { room: string }).room}.`,
    }),
    setup: () => {
      log.push('test-kit setup');
      return Promise.resolve();
    },
    teardown: () => {
      log.push('test-kit teardown');
      return Promise.resolve();
    },
    health: () =>
      Promise.resolve(
        options.degraded ? { state: 'degraded', reason: 'told to be degraded' } : { state: 'ready' },
      ),
  });
}

/** A plugin that depends on test-kit and reads its shared state. */
export function testKitAddonPlugin(log: PluginLog): OraclePlugin {
  return definePlugin({
    manifest: {
      name: 'test-kit-addon',
      title: 'Test kit add-on',
      summary: 'Counts the turns the test kit saw.',
      visibility: 'on-demand',
      stability: 'experimental',
      category: 'observability',
      defaultOn: true,
      dependsOn: ['test-kit'],
      requiredEnv: [],
    },
    tools: (ctx) => [
      defineTool({
        name: 'count_turns',
        description: 'How many turns the test kit has seen.',
        parameters: z.object({}),
        handler: () => Promise.resolve(ctx.shared<{ turns: number }>('test-kit')?.turns ?? -1),
      }),
    ],
    setup: () => {
      log.push('test-kit-addon setup');
      return Promise.resolve();
    },
    teardown: () => {
      log.push('test-kit-addon teardown');
      return Promise.resolve();
    },
  });
}

/** The configured models, each replaced by `wrap(model)` (a test's own model behaviour over the real ids). */
export function mapModels(
  wrap: (model: ChatModel) => ChatModel,
): (configured: ModelRegistry) => ModelRegistry {
  return (configured) => ({
    default: configured.default,
    list: () => configured.list(),
    get(id) {
      const model = configured.get(id);
      return model && wrap(model);
    },
  });
}

/** Wraps the configured models so a test can read every request a model received. */
export function recordingModels(requests: ModelRequest[]): (configured: ModelRegistry) => ModelRegistry {
  return mapModels((model) => ({
    id: model.id,
    stream(request) {
      requests.push({ ...request, messages: [...request.messages] });
      return model.stream(request);
    },
  }));
}
