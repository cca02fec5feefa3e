import type { ComponentType, ReactNode } from 'react';
import type { z } from 'zod';
import type { RunEndStatus } from '../../contracts/events.js';
import type { StoredToolCall } from '../../contracts/oracle.js';
import type { BackoffOptions } from './util/backoff.js';

export type { AnyEvent } from '../../contracts/events.js';

/**
 * Status of a tool, browser-tool or action call as a message part shows it: `awaiting_approval` while a server
 * tool call waits for its user's decision, `denied` when the user (or the timeout) declined it.
 */
export type PartStatus = 'isRunning' | 'done' | 'error' | 'awaiting_approval' | 'denied';

/**
 * A non-text part of a message: a tool call, an agent-UI action or a rendered component. `name` picks the
 * React component from {@link UIComponents}; `props` are what it receives.
 */
export interface IComponentMetadata {
  name: string;
  props: {
    /** The call's id (tool call id or event id): parts are updated in place by it, never duplicated. */
    id: string;
    args: Record<string, unknown>;
    status?: PartStatus;
    /** The result as text (JSON for structured results). */
    output?: string;
    error?: string;
    /** The tool, browser tool or action name. */
    toolName?: string;
    /** Actions: false while the service has announced the call without its arguments yet. */
    argsComplete?: boolean;
    /** What the part is: a server tool, a browser tool, an agent-UI action or a component. */
    kind?: 'tool' | 'browser_tool' | 'action' | 'component';
    isToolCall?: boolean;
    isAgAction?: boolean;
    requestId?: string;
    sessionId?: string;
  };
}

/** Content of a message: text, one component, or text and components in the order they happened. */
export type MessageContent = string | IComponentMetadata | Array<string | IComponentMetadata>;

/**
 * One message of a chat thread, as `useChat` returns it.
 *
 * @example
 * messages.map((m) => <div key={m.id} className={m.type}>{renderMessageContent(m.content, uiComponents)}</div>)
 */
export interface IMessage {
  /** For AI messages the request id of the turn (`X-Request-Id`), the same id history returns. */
  id: string;
  type: 'ai' | 'human';
  content: MessageContent;
  /** Reasoning of the turn, kept apart from the answer. */
  reasoning?: string;
  /** True while reasoning is still streaming. */
  isReasoning?: boolean;
  /** True once the answer is complete (history, or a finished stream). */
  isComplete?: boolean;
  /** The tool calls of an AI message as history stored them. */
  toolCalls?: StoredToolCall[];
  /** How the turn that wrote this AI message ended, when not `finished`. */
  runStatus?: RunEndStatus;
  createdAt?: string;
}

/** Props every component of {@link UIComponents} receives, beside the part's own. */
export interface UIComponentBaseProps {
  id: string;
  status?: PartStatus;
  isLoading?: boolean;
}

/** Props of the `ToolCall` fallback component (server and browser tool calls). */
export interface ToolCallComponentProps extends UIComponentBaseProps {
  toolName: string;
  args: Record<string, unknown>;
  output?: string;
  error?: string;
  kind?: 'tool' | 'browser_tool';
  requestId?: string;
  sessionId?: string;
}

/**
 * Props of the `ToolApproval` component: a server tool call that waits for the user's yes or no (status
 * `awaiting_approval`). `approve`/`deny` decide it (as `useChat`'s do); they reject when it was decided already.
 */
export interface ToolApprovalComponentProps {
  id: string;
  toolName: string;
  /** The model's arguments, as it sent them: nothing ran yet. */
  args: Record<string, unknown>;
  approve: () => Promise<void>;
  deny: (reason?: string) => Promise<void>;
}

/** Props of the `AgActionToolCall` fallback component (actions without their own `render`). */
export interface AgActionComponentProps extends UIComponentBaseProps {
  actionName: string;
  args: Record<string, unknown>;
  output?: string;
  error?: string;
}

/**
 * Map from a render-component name (or tool name) to the React component that draws it. Two names are
 * fallbacks: `ToolCall` for tool calls without a component of their own, `AgActionToolCall` for actions
 * without a `render`. A name with no component renders nothing (and is warned about once).
 *
 * @example
 * const uiComponents: UIComponents = {
 *   WeatherCard: ({ city, temperature }) => <p>{String(city)}: {String(temperature)}°</p>,
 *   ToolCall: ({ toolName, status }) => <small>{toolName} {status}</small>,
 * };
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- components of any props are allowed here
export type UIComponents = Record<string, ComponentType<any>>;

/**
 * A browser-side tool the agent may call (spec C2). `fn` gets the arguments parsed by `schema`, typed from
 * it: in `useChat({ browserTools })` and in {@link defineBrowserTool} the type of `fn`'s argument is
 * `z.infer<typeof schema>`.
 *
 * @example
 * const pageTitle = defineBrowserTool({
 *   toolName: 'pageTitle', description: 'Title of the page',
 *   schema: z.object({ upper: z.boolean() }),
 *   fn: ({ upper }) => (upper ? document.title.toUpperCase() : document.title), // upper: boolean
 * });
 */
export interface BrowserTool<S extends z.ZodTypeAny = z.ZodTypeAny> {
  toolName: string;
  description: string;
  /** A zod object schema of the arguments; advertised to the agent as JSON schema. */
  schema: S;
  /** Runs the tool with the parsed arguments; what it returns goes back to the agent. */
  fn(args: z.infer<S>): unknown;
  /**
   * Ask the user first: the call waits in `useChat`'s `pendingApprovals` (and as an approval card) until
   * `approve` or `deny`; denied, `fn` does not run and the agent reads that the user declined. A function
   * decides per call from the model's arguments.
   */
  needsApproval?: boolean | ApprovalRule<z.infer<S>>;
}

/** A per-call approval rule (a method's type, so a tool of any argument type fits a map of tools). */
type ApprovalRule<A> = { rule(args: A): boolean | Promise<boolean> }['rule'];

/** Browser tools by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a map of tools of any argument types
export type BrowserTools = Record<string, BrowserTool<any>>;

/** The argument schemas of a map of browser tools, by name (what `useChat` infers `fn` types from). */
export type ToolSchemas = Record<string, z.ZodTypeAny>;

/** Browser tools whose `fn` arguments are typed from their own `schema`. */
export type TypedBrowserTools<S extends ToolSchemas> = { [K in keyof S]: BrowserTool<S[K]> };

/** Chat status (spec C3): `submitted → streaming → ready | error`. */
export type ChatStatus = 'submitted' | 'streaming' | 'ready' | 'error';

/** How streamed tokens reach React: at most one render per animation frame, or one per network read. */
export type StreamingMode = 'batched' | 'immediate';

/** URL overrides: replace the addresses resolved from the oracle's on-chain document. */
export interface OracleOverrides {
  baseUrl?: string;
  wsUrl?: string;
}

/**
 * Options of `useChat` (spec C2).
 *
 * @example
 * useChat({ oracleDid, sessionId, onPaymentRequiredError: (claims) => showPaywall(claims) });
 */
export interface IChatOptions<S extends ToolSchemas = ToolSchemas> {
  oracleDid: string;
  /** The session; an empty string is "no session yet" (nothing loads, nothing fails until a send). */
  sessionId: string;
  /** Called with the claim ids of a payment-required (402) answer. */
  onPaymentRequiredError: (claimIds: string[]) => void;
  /** Browser tools the agent may call; each `fn`'s argument is typed from its `schema`. */
  browserTools?: TypedBrowserTools<S>;
  /**
   * Components by name: what `render_component` events and tool-call parts render with, also through
   * `renderMessageContent(content)` without a second argument.
   */
  uiComponents?: UIComponents;
  /** `{ baseUrl, wsUrl }` instead of the addresses resolved from the chain (or set once on the provider). */
  overrides?: OracleOverrides;
  /** Default `'batched'`: at most one render per animation frame while tokens stream. */
  streamingMode?: StreamingMode;
  /**
   * With `batched`: publish streamed tokens at most once per this many ms instead of once per animation
   * frame (as reference SDK 1.4.0's option of the same name).
   */
  streamingThrottleMs?: number;
  /** The model id (one of `useModels`); the oracle's default when absent. */
  model?: string;
  /** Messages per history page (default 20). */
  historyPageSize?: number;
  /** How a dropped answer stream is re-joined: `{ attempts: 5, baseMs: 250, maxMs: 8000 }` by default. */
  rejoin?: RejoinOptions;
}

/** How a dropped stream is re-joined (`GET /runs/:runId?after=<last id>`). */
export interface RejoinOptions extends BackoffOptions {
  /**
   * Consecutive re-join attempts that fail (an error, or a stream that ends without a new event) before the
   * run counts as disconnected. Default 5.
   */
  attempts?: number;
}

/** How the current or last turn's durable run stands (beyond the spec, as reference SDK 1.4.0). */
export interface RunState {
  runId: string | null;
  requestId: string | null;
  /** True while a dropped stream is being re-joined. */
  reconnecting: boolean;
  /** True when the server restarted the turn after a crash. */
  resumed: boolean;
  /** How the run ended; `disconnected` when the stream was lost and could not be re-joined. */
  ended: RunEndStatus | 'disconnected' | null;
}

/**
 * Inline render of an agent-UI action (spec C4). `status` is `done` once the arguments are complete (the
 * spec's meaning), `isRunning` before; the handler's progress is beside it: `executing` while it runs, then
 * its `result` or its `error`.
 */
export type AgActionRender<A> = (props: {
  status: 'isRunning' | 'done';
  args: Partial<A>;
  /** True while the handler runs in this tab. */
  executing: boolean;
  /** What the handler returned (parsed from JSON). */
  result?: unknown;
  /** Why the handler (or the arguments) failed. */
  error?: string;
}) => ReactNode;
