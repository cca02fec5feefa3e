import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Request } from 'express';
import { z } from 'zod';
import { MEMORY_CONTENT_MAX, memoryContract, MemoryTag } from '../../../../contracts/memory.js';
import { AuthError } from '../../auth/auth-error.js';
import { oracleErrorHandler } from '../../http/oracle-error.js';
import { OracleHttpError } from '../../oracle-http-error.js';
import { definePlugin, pluginConfig, type OraclePlugin, type PluginManifest } from '../../runtime/plugin.js';
import { defineTool } from '../../runtime/tools.js';
import { memoryConfig } from './config.js';
import { MemoryStore } from './store.js';

const memoryManifest: PluginManifest = {
  name: 'memory',
  title: 'Memory',
  summary: 'Remembers facts about the user across sessions (who they are, their work) and recalls them.',
  visibility: 'always',
  stability: 'beta',
  category: 'memory',
  defaultOn: false,
  dependsOn: [],
  requiredEnv: [],
  config: memoryConfig,
};

/**
 * The memory plugin: the separate memory spec D's use rule 2 points to. Tools to remember and recall facts
 * about the user, and the routes of the SDK's `useMemoryEngine` (GET/POST /memory, DELETE /memory/:id), per
 * user DID, in the database.
 */
export function memoryPlugin(): OraclePlugin {
  let store: MemoryStore | undefined;
  const storeOf = (): MemoryStore => {
    if (!store) throw new Error('memory: not set up');
    return store;
  };
  return definePlugin({
    manifest: memoryManifest,
    setup: (ctx) => {
      store = new MemoryStore(
        ctx.db.kysely,
        ctx.identity.did,
        pluginConfig(ctx, memoryConfig).ORACLE_MAX_MEMORIES_PER_USER,
      );
      return Promise.resolve();
    },
    tools: [
      defineTool({
        name: 'remember_fact',
        description:
          'Saves a fact about the user for later sessions: who they are (name, role), their projects, what you made for them and how they liked it. Not for how you should behave (that is set_user_preferences).',
        parameters: z
          .object({
            content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX),
            tags: z.array(MemoryTag).max(10).optional(),
          })
          .strict(),
        handler: ({ content, tags }, ctx) => storeOf().remember(ctx.userDid, content, tags),
      }),
      defineTool({
        name: 'recall_facts',
        description:
          'Finds facts remembered about the user; give a few words or a tag, or nothing for the newest.',
        parameters: z
          .object({
            query: z.string().max(200).optional(),
            limit: z.number().int().min(1).max(50).optional(),
          })
          .strict(),
        handler: async ({ query, limit }, ctx) =>
          (await storeOf().list(ctx.userDid, { q: query, limit: limit ?? 10, offset: 0 })).memories,
      }),
    ],
    httpModules: [
      {
        name: 'MemoryHttpModule',
        paths: ['/memory'],
        register(router, { requireCaller }) {
          const s = initServer();
          const userOf = (locals: { auth?: { userDid: string } }): string => {
            if (!locals.auth) throw new AuthError('auth_missing');
            return locals.auth.userDid;
          };
          createExpressEndpoints(
            memoryContract,
            s.router(memoryContract, {
              list: async ({ query, res }) => ({
                status: 200,
                body: await storeOf().list(userOf(res.locals), query),
              }),
              remember: async ({ body, res }) => ({
                status: 201,
                body: await storeOf().remember(userOf(res.locals), body.content, body.tags),
              }),
              forget: async ({ params, res }) => {
                if (!(await storeOf().forget(userOf(res.locals), params.memoryId))) {
                  throw new OracleHttpError(404, 'not_found', 'Memory not found.');
                }
                return { status: 200, body: { message: 'Memory deleted.' } };
              },
            }),
            router,
            {
              logInitialization: false,
              globalMiddleware: [(req, res, next) => requireCaller(req as unknown as Request, res, next)],
              requestValidationErrorHandler: (err, req, res, next) =>
                oracleErrorHandler(err, req as Request, res, next),
            },
          );
        },
      },
    ],
  });
}
