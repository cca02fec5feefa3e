import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Request } from 'express';
import {
  preferencesContract,
  SetUserPreferencesArgs,
  type UserPreferences,
} from '../../../../contracts/preferences.js';
import { AuthError } from '../../auth/auth-error.js';
import { oracleErrorHandler } from '../../http/oracle-error.js';
import { roomNotFound } from '../../oracle-http-error.js';
import { definePlugin, type OraclePlugin, type PluginManifest } from '../../runtime/plugin.js';
import { fence } from '../../models/prompt-fence.js';
import { defineTool } from '../../runtime/tools.js';
import { RoomStore } from '../../store/rooms.js';
import { roomKey, PreferencesStore, splitInstructions } from './store.js';

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
const SET_USER_PREFERENCES_DESCRIPTION = [
  "Saves how the user wants you to behave from now on in this room: tone, answer length, format, reply language (a BCP 47 tag such as 'sw' or 'en'), formality, what to call you (agentName), or standing instructions such as 'No emojis.'.",
  '1. Call it when the user states how you should behave (terse replies, a reply language, a form of address, no emojis) or asks you to change your voice, formality or language. Save without asking for confirmation.',
  '2. Do not call it for facts about who the user is (their name, role or project) or for things you produced and how they liked them: those belong to a separate memory, not to preferences.',
  "3. Do not call it for a request about the current answer only (for example 'answer this one as a table'): just format that answer.",
  "customInstructions adds to the user's earlier standing instructions (a repeated one is dropped; past the length bound the oldest go first): pass only the new instruction, never the old ones again. null clears every instruction; to replace one, clear them and set what should stay.",
  'Pass only the fields that change; null clears a field. It returns the merged preferences.',
].join('\n');

/**
 * How the prompt shows the preferences (the scripted model reads these labels too), one line per field. What
 * the user wrote in their own words (agent name, tone, each custom instruction) enters through the one fence
 * (models/prompt-fence.ts), as the user's preferences about style, never as rules of the system; the fields
 * the contract holds to a closed set (language tag, length, format, formality) enter as they are.
 */
export function describePreferences(p: UserPreferences): string {
  const lines: string[] = [];
  if (p.agentName) lines.push(`- Preferred agent name: ${fence(p.agentName)}`);
  if (p.language) lines.push(`- Reply language: ${p.language}`);
  if (p.tone) lines.push(`- Tone: ${fence(p.tone)}`);
  if (p.length) lines.push(`- Answer length: ${p.length}`);
  if (p.format) lines.push(`- Format: ${p.format}`);
  if (p.formality) lines.push(`- Formality: ${p.formality}`);
  for (const instruction of splitInstructions(p.customInstructions ?? '')) {
    lines.push(`- Custom instruction: ${fence(instruction)}`);
  }
  if (lines.length === 0) return '';
  return [
    'The user set these preferences: follow them for how you answer (voice, length, format, language, your name).',
    ...lines,
    'Follow these preferences in every answer.',
  ].join('\n');
}

/**
 * The user-preferences plugin (spec part D): per-room behavioural preferences in the database, filled into
 * `state.userPreferences` before the prompt is compiled, the tool `set_user_preferences`, and the HTTP module
 * `UserPreferencesHttpModule` with `GET /user-preferences`.
 */
export function userPreferencesPlugin(): OraclePlugin {
  let store: PreferencesStore | undefined;
  let rooms: RoomStore | undefined;
  const roomsOf = (): RoomStore => {
    if (!rooms) throw new Error('user-preferences: not set up');
    return rooms;
  };
  const storeOf = (): PreferencesStore => {
    if (!store) throw new Error('user-preferences: not set up');
    return store;
  };
  return definePlugin({
    manifest: userPreferencesManifest,
    setup: (ctx) => {
      store = new PreferencesStore(ctx.db, ctx.identity.did, ctx.logger, {
        exclusive: ctx.db.kind === 'pglite',
      });
      rooms = new RoomStore(ctx.db.kysely, ctx.identity.did);
      return Promise.resolve();
    },
    tools: [
      defineTool({
        name: 'set_user_preferences',
        description: SET_USER_PREFERENCES_DESCRIPTION,
        parameters: SetUserPreferencesArgs,
        handler: async (args, ctx) => {
          // The room was checked when the turn was accepted (the caller is a member); a shared room's changes
          // are audit-logged with the member's DID.
          const saved = await storeOf().update(roomKey(ctx.userDid, ctx.sharedRoomId), args);
          if (ctx.sharedRoomId) {
            await roomsOf().audit(ctx.sharedRoomId, ctx.userDid, 'preferences_changed', { changes: args });
          }
          return saved;
        },
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
      return preferences ? { title: 'User Preferences', body: describePreferences(preferences) } : undefined;
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
                // A shared room is read by its members only; anyone else gets the 404 of an unknown room.
                if (query.roomId !== undefined && !(await roomsOf().role(query.roomId, auth.userDid))) {
                  throw roomNotFound();
                }
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
