import { Fragment, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { OraclesContext, type OraclesContextValue } from '../context/oracles-context.js';
import type { IComponentMetadata, MessageContent, UIComponents } from '../types.js';
import { DefaultToolApproval } from './default-tool-approval.js';
import { DefaultToolCall } from './default-tool-call.js';

const warned = new Set<string>();
/** Warns once per missing component name. */
function warnMissing(name: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  console.warn(`[oracles-client-sdk] no UI component for "${name}" in uiComponents; it renders nothing`);
}

const noopSubscribe = (): (() => void) => () => undefined;
const zero = (): number => 0;

const parseOutput = (output: string | undefined): unknown => {
  if (output === undefined) return undefined;
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
};

/**
 * The components a part renders with: the ones passed to `renderMessageContent`, over the ones the mounted
 * `useChat` hooks were given. Re-renders when hooks register or change theirs, or actions come and go.
 */
function useComponents(explicit: UIComponents | undefined): {
  components: UIComponents;
  ctx: OraclesContextValue | null;
} {
  const ctx = useContext(OraclesContext);
  useSyncExternalStore(ctx?.ui.subscribe ?? noopSubscribe, ctx?.ui.version ?? zero, ctx?.ui.version ?? zero);
  useSyncExternalStore(
    ctx?.actions.subscribe ?? noopSubscribe,
    ctx?.actions.version ?? zero,
    ctx?.actions.version ?? zero,
  );
  const registered = ctx?.ui.get();
  return { components: explicit ? { ...registered, ...explicit } : (registered ?? {}), ctx };
}

function ActionPart({ part, explicit }: { part: IComponentMetadata; explicit?: UIComponents }): ReactNode {
  const { components, ctx } = useComponents(explicit);
  const { props } = part;
  const failed = props.status === 'error';
  const settled = props.status === 'done' || failed;
  // Spec C4: `done` once the arguments are complete; the handler's progress is reported beside it.
  const argsComplete = props.argsComplete !== false || settled;
  const status = argsComplete ? 'done' : 'isRunning';
  const action = ctx?.actions.get(part.name);
  if (action?.render) {
    return action.render({
      status,
      args: props.args,
      executing: argsComplete && !settled,
      ...(props.status === 'done' ? { result: parseOutput(props.output) } : {}),
      ...(props.error !== undefined ? { error: props.error } : {}),
    });
  }
  const Fallback = components['AgActionToolCall'] ?? components['ToolCall'];
  if (!Fallback) {
    return (
      <DefaultToolCall
        id={props.id}
        toolName={part.name}
        args={props.args}
        output={props.output}
        error={props.error}
        status={props.status}
        isLoading={!settled}
      />
    );
  }
  return (
    <Fallback
      id={props.id}
      actionName={part.name}
      args={props.args}
      output={props.output}
      status={props.status ?? 'isRunning'}
      error={props.error}
      isLoading={!settled}
    />
  );
}

/** A tool call waiting for the user's decision: `uiComponents.ToolApproval`, else the default card. */
function ApprovalPart({ part, explicit }: { part: IComponentMetadata; explicit?: UIComponents }): ReactNode {
  const { components, ctx } = useComponents(explicit);
  const { props } = part;
  const decide = (approved: boolean, reason?: string): Promise<void> => {
    const chat = props.sessionId === undefined ? undefined : ctx?.chats.ofSession(props.sessionId);
    if (!chat) return Promise.reject(new Error('No chat of this session is mounted.'));
    return chat.decideApproval(props.id, { approved, ...(reason ? { reason } : {}) });
  };
  const Approval = components['ToolApproval'] ?? DefaultToolApproval;
  return (
    <Approval
      id={props.id}
      toolName={props.toolName ?? part.name}
      args={props.args}
      approve={() => decide(true)}
      deny={(reason?: string) => decide(false, reason)}
    />
  );
}

function Part({ part, explicit }: { part: IComponentMetadata; explicit?: UIComponents }): ReactNode {
  const { components } = useComponents(explicit);
  const { props } = part;
  const status = props.status;
  const isLoading = status === 'isRunning';
  if (props.isAgAction || props.kind === 'action') return <ActionPart part={part} explicit={explicit} />;
  if (status === 'awaiting_approval') return <ApprovalPart part={part} explicit={explicit} />;
  if (props.isToolCall || props.kind === 'tool' || props.kind === 'browser_tool') {
    const Tool = components[part.name] ?? components['ToolCall'] ?? DefaultToolCall;
    return (
      <Tool
        id={props.id}
        toolName={props.toolName ?? part.name}
        args={props.args}
        output={props.output}
        error={props.error}
        status={status}
        isLoading={isLoading}
        kind={props.kind === 'browser_tool' ? 'browser_tool' : 'tool'}
        requestId={props.requestId}
        sessionId={props.sessionId}
      />
    );
  }
  const Component = components[part.name];
  if (!Component) {
    warnMissing(part.name);
    return null;
  }
  return <Component {...props.args} id={props.id} status={status} isLoading={isLoading} />;
}

/**
 * Turns stored or streamed message content into React nodes (spec C5): text as is; a tool call that waits for
 * the user's approval through `uiComponents.ToolApproval`, else a card with Approve and Deny; tool calls through
 * `uiComponents[toolName]`, else `uiComponents.ToolCall`, else a plain default line ({@link DefaultToolCall});
 * agent-UI actions through their `render` (from `useAgAction`), else `AgActionToolCall`/`ToolCall`, else the
 * default; rendered components through `uiComponents[componentName]` with the event's args as props (a name
 * without a component renders nothing and is warned about once).
 *
 * With one argument it draws with the `uiComponents` given to the mounted `useChat` hooks; a map given here
 * is laid over those.
 *
 * @example
 * {messages.map((m) => <div key={m.id}>{renderMessageContent(m.content)}</div>)}
 */
export function renderMessageContent(content: MessageContent, uiComponents?: UIComponents): ReactNode {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return <Part part={content} explicit={uiComponents} />;
  return content.map((item, i) =>
    typeof item === 'string' ? (
      <Fragment key={`text-${i}`}>{item}</Fragment>
    ) : (
      <Part key={item.props.id} part={item} explicit={uiComponents} />
    ),
  );
}
