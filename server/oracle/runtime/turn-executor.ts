import type { Logger } from '../../logger.js';
import type { OracleIdentity } from '../identity.js';
import type { ChatModel } from '../models/model.js';
import type { ModelRegistry } from '../models/registry.js';
import type { RunExecutor } from '../runs/turn.js';
import type { OracleSockets } from '../socket/socket-server.js';
import { THREAD_WINDOW, type MessageStore } from '../store/messages.js';
import type { SessionStore } from '../store/sessions.js';
import type { PluginDecision } from './features.js';
import type { FrontendBridge } from '../socket/frontend-bridge.js';
import type { PluginContext, TurnContext } from './plugin.js';
import { compileSystemPrompt, type PromptSection } from './prompt.js';
import type { ServerTool } from './tools.js';
import type { TurnApprovals } from './approval-gate.js';
import { runTurn } from './turn-loop.js';
import { isPermanent, RECORD_RETRY_MS, retryStore } from '../runs/store-retry.js';

/** Pause between two tries of a turn's first reads (see createTurnExecutor). */
const TURN_READ_RETRY_EVERY_MS = 100;

/** What a turn is executed with: the stores it reads, the plugins that shape it, where its calls go. */
export interface TurnExecutorDeps {
  sessions: SessionStore;
  messages: MessageStore;
  models: ModelRegistry;
  identity: OracleIdentity;
  /** The enabled plugins, in dependency order. */
  plugins: PluginDecision[];
  pluginContext: PluginContext;
  /** The server tools of a turn on this model (the plugins', their sub-agents on it, list_capabilities). */
  serverToolsFor: (model: ChatModel) => ServerTool[];
  bridge: FrontendBridge;
  sockets: Pick<OracleSockets, 'emitToSession'>;
  toolTimeoutMs: number;
  /** Which server tool calls wait for their user's approval, and where they wait. */
  approvals?: TurnApprovals | undefined;
  logger: Logger;
}

/**
 * The turn of a run: load the session and the thread, let the plugins fill the runtime state, compile the
 * prompt from their sections, and run the model with the tools (turn-loop.ts). Tool calls and components go to
 * the session's sockets too.
 */
export function createTurnExecutor(deps: TurnExecutorDeps): RunExecutor {
  const { sessions, messages, models, identity, plugins: enabled, pluginContext, bridge, logger } = deps;
  return async ({
    row,
    session: known,
    history: knownHistory,
    request,
    continueFrom,
    resumeAt,
    emit,
    signal,
  }) => {
    const model = models.get(request.model ?? models.default) ?? models.get(models.default);
    if (!model) throw new Error('no model is configured');
    // What the turn reads before the model starts: the session, the state the plugins fill (the prompt compiled
    // below already follows it) and the thread, which recording the run reads (these reads go on meanwhile).
    // The run's first event is out: a busy pool (every connection taken, the acquire timed out) or a database
    // away a moment is waited out, not a failed turn.
    const retried = <T>(read: () => Promise<T>): Promise<T> =>
      retryStore(read, {
        everyMs: TURN_READ_RETRY_EVERY_MS,
        forMs: RECORD_RETRY_MS,
        retryOn: (err) => !isPermanent(err),
        stopped: () => signal.aborted,
      });
    const thread = (async () =>
      (await knownHistory) ?? retried(() => messages.recent(row.session_id, THREAD_WINDOW)))();
    const [{ turn, state }, history] = await Promise.all([
      retried(async () => {
        const session = known ?? (await sessions.owned(row.user_did, row.session_id));
        const sharedRoomId = roomOf(request.metadata) ?? session?.room_id ?? undefined;
        const turn: TurnContext = {
          userDid: row.user_did,
          sessionId: row.session_id,
          roomId: sharedRoomId ?? `${row.user_did}|${identity.did}`,
          sharedRoomId,
          request: { message: request.message, metadata: request.metadata, timezone: request.timezone },
        };
        const state: Record<string, unknown> = {};
        for (const { plugin } of enabled) await plugin.enrichState?.(state, turn, pluginContext);
        return { turn, state };
      }),
      thread,
    ]);
    const { roomId, sharedRoomId } = turn;
    const sections: PromptSection[] = [capabilitiesSection(enabled)];
    for (const { plugin } of enabled) {
      const section = plugin.promptSection?.(state, pluginContext);
      if (section) sections.push(section);
    }
    const userAgentName = typeof state['agentName'] === 'string' ? state['agentName'] : undefined;
    return runTurn(
      {
        sessionId: row.session_id,
        userDid: row.user_did,
        runId: row.run_id,
        requestId: row.request_id,
        roomId,
        sharedRoomId,
        request,
        history,
        systemPrompt: compileSystemPrompt({
          agentName: identity.name,
          userAgentName,
          now: new Date(),
          timezone: request.timezone,
          sections,
        }),
        state,
        continueFrom,
        resumeAt,
      },
      {
        model,
        serverTools: deps.serverToolsFor(model),
        bridge,
        toolTimeoutMs: deps.toolTimeoutMs,
        approvals: deps.approvals,
        logger,
        signal,
        emit: (event, data) => {
          emit(event, data);
          // The socket carries tool calls and components too, as the SDK expects (spec §6).
          if (
            event === 'tool_call' ||
            event === 'render_component' ||
            event === 'tool_approval_requested' ||
            event === 'tool_approval_decided'
          ) {
            deps.sockets.emitToSession(row.session_id, event, data as never);
          }
        },
      },
    );
  };
}

/** A shared room named by the request's metadata (`roomId`), if any. */
function roomOf(metadata: Record<string, unknown> | undefined): string | undefined {
  const room = metadata?.['roomId'];
  return typeof room === 'string' && room.length > 0 && room.length <= 255 ? room : undefined;
}

/** The prompt section listing the capabilities of `always`-visible plugins. */
function capabilitiesSection(enabled: PluginDecision[]): PromptSection {
  const lines = enabled
    .filter((d) => d.manifest.visibility === 'always')
    .map((d) => `- ${d.manifest.title}: ${d.manifest.summary}`);
  return { title: 'Capabilities', body: lines.join('\n') };
}
