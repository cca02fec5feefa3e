import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Request } from 'express';
import {
  preferencesContract,
  SetUserPreferencesArgs,
  type UserPreferences,
} from '../../../../contracts/preferences.js';
import { AuthError } from '../../auth/auth-error.js';
import { oracleErrorHandler } from '../../http/oracle-error.js';
import { definePlugin, type OraclePlugin, type PluginManifest } from '../../runtime/plugin.js';
import { defineTool } from '../../runtime/tools.js';
import { roomKey, PreferencesStore } from './store.js';

/** Spec part D's attribute table, exactly. */
export const userPreferencesManifest: PluginManifest = {
  name: 'user-preferences',
  title: 'User preferences',
  summary: 'Remembers how the user wants the agent to behave: tone, length, format, language and its name.',
  visibility: 'always',
  stability: 'stable',
  category: 'core',
  defaultOn: true,
  dependsOn: [],
  requiredEnv: [],
};

/** The tool's description: spec part D's three use rules, in words a model can follow. */
export const SET_USER_PREFERENCES_DESCRIPTION = [
  "Saves how the user wants you to behave from now on in this room: tone, answer length, format, reply language (a BCP 47 tag such as 'sw' or 'en'), formality, what to call you (agentName), or standing instructions such as 'No emojis.'.",
  '1. Call it when the user states how you should behave (terse replies, a reply language, a form of address, no emojis) or asks you to change your voice, formality or language. Save without asking for confirmation.',
  '2. Do not call it for facts about who the user is (their name, role or project) or for things you produced and how they liked them: those belong to a separate memory, not to preferences.',
  "3. Do not call it for a request about the current answer only (for example 'answer this one as a table'): just format that answer.",
  'Pass only the fields that change; null clears a field. It returns the merged preferences.',
].join('\n');

/** How the prompt shows the preferences (the scripted model reads these labels too). */
function describe(p: UserPreferences): string {
  const lines: string[] = [];
  if (p.agentName) lines.push(`- Preferred agent name: ${p.agentName}`);
  if (p.language) lines.push(`- Reply language: ${p.language}`);
  if (p.tone) lines.push(`- Tone: ${p.tone}`);
  if (p.length) lines.push(`- Answer length: ${p.length}`);
  if (p.format) lines.push(`- Format: ${p.format}`);
  if (p.formality) lines.push(`- Formality: ${p.formality}`);
  if (p.customInstructions) lines.push(`- Custom instructions: ${p.customInstructions}`);
  return lines.length ? `${lines.join('\n')}\nFollow these preferences in every answer.` : '';
}

/**
 * The user-preferences plugin (spec part D): per-room behavioural preferences in the database, filled into
 * `state.userPreferences` before the prompt is compiled, the tool `set_user_preferences`, and the HTTP module
 * `UserPreferencesHttpModule` with `GET /user-preferences`.
 */
export function userPreferencesPlugin(): OraclePlugin {
  let store: PreferencesStore | undefined;
  const storeOf = (): PreferencesStore => {
    if (!store) throw new Error('user-preferences: not set up');
    return store;
  };
  return definePlugin({
    manifest: userPreferencesManifest,
    setup: (ctx) => {
      store = new PreferencesStore(ctx.db.kysely, ctx.identity.did);
      return Promise.resolve();
    },
    tools: [
      defineTool({
        name: 'set_user_preferences',
        description: SET_USER_PREFERENCES_DESCRIPTION,
        parameters: SetUserPreferencesArgs,
        handler: (args, ctx) => storeOf().update(roomKey(ctx.userDid, ctx.sharedRoomId), args),
      }),
    ],
    enrichState: async (state, turn) => {
      const preferences = await storeOf().get(roomKey(turn.userDid, turn.sharedRoomId));
      if (!preferences) return;
      state['userPreferences'] = preferences;
      if (preferences.agentName) state['agentName'] = preferences.agentName;
    },
    promptSection: (state) => {
      const preferences = state['userPreferences'] as UserPreferences | undefined;
      return preferences ? { title: 'User Preferences', body: describe(preferences) } : undefined;
    },
    httpModules: [
      {
        name: 'UserPreferencesHttpModule',
        paths: ['/user-preferences'],
        register(router, { requireCaller }) {
          const s = initServer();
          createExpressEndpoints(
            preferencesContract,
            s.router(preferencesContract, {
              get: async ({ query, res }) => {
                const auth = res.locals.auth;
                if (!auth) throw new AuthError('auth_missing');
                // null when there is none, as a JSON body (the reference sends an empty body).
                return { status: 200, body: await storeOf().get(roomKey(auth.userDid, query.roomId)) };
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
