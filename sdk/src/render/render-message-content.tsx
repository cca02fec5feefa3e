import { Fragment, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { OraclesContext } from '../context/oracles-context.js';
import type { IComponentMetadata, MessageContent, UIComponents } from '../types.js';

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

function ActionPart({
  part,
  uiComponents,
}: {
  part: IComponentMetadata;
  uiComponents: UIComponents;
}): ReactNode {
  const ctx = useContext(OraclesContext);
  // Re-render when actions register or unregister, so a render function shows once its hook mounts.
  useSyncExternalStore(
    ctx?.actions.subscribe ?? noopSubscribe,
    ctx?.actions.version ?? zero,
    ctx?.actions.version ?? zero,
  );
  const { props } = part;
  const status = props.status ?? 'isRunning';
  const action = ctx?.actions.get(part.name);
  if (action?.render) {
    return action.render({
      status,
      args: props.args,
      result: parseOutput(props.output),
      ...(props.error !== undefined ? { error: props.error } : {}),
    });
  }
  const Fallback = uiComponents['AgActionToolCall'] ?? uiComponents['ToolCall'];
  if (!Fallback) {
    warnMissing('AgActionToolCall');
    return null;
  }
  return (
    <Fallback
      id={props.id}
      actionName={part.name}
      args={props.args}
      output={props.output}
      status={status}
      error={props.error}
      isLoading={status === 'isRunning'}
    />
  );
}

function Part({ part, uiComponents }: { part: IComponentMetadata; uiComponents: UIComponents }): ReactNode {
  const { props } = part;
  const status = props.status;
  const isLoading = status === 'isRunning';
  if (props.isAgAction || props.kind === 'action')
    return <ActionPart part={part} uiComponents={uiComponents} />;
  if (props.isToolCall || props.kind === 'tool' || props.kind === 'browser_tool') {
    const Tool = uiComponents[part.name] ?? uiComponents['ToolCall'];
    if (!Tool) {
      warnMissing(part.name);
      return null;
    }
    return (
      <Tool
        id={props.id}
        toolName={props.toolName ?? part.name}
        args={props.args}
        output={props.output}
        error={props.error}
        status={status}
        isLoading={isLoading}
        kind={props.kind}
        requestId={props.requestId}
        sessionId={props.sessionId}
      />
    );
  }
  const Component = uiComponents[part.name];
  if (!Component) {
    warnMissing(part.name);
    return null;
  }
  return <Component {...props.args} id={props.id} status={status} isLoading={isLoading} />;
}

/**
 * Turns stored or streamed message content into React nodes (spec C5): text as is; tool calls through
 * `uiComponents[toolName]` or the `ToolCall` fallback; agent-UI actions through their `render` (from
 * `useAgAction`) or the `AgActionToolCall` fallback; rendered components through `uiComponents[name]`.
 * A name with no component renders nothing and is warned about once.
 *
 * @example
 * {messages.map((m) => <div key={m.id}>{renderMessageContent(m.content, uiComponents)}</div>)}
 */
export function renderMessageContent(content: MessageContent, uiComponents: UIComponents = {}): ReactNode {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return <Part part={content} uiComponents={uiComponents} />;
  return content.map((item, i) =>
    typeof item === 'string' ? (
      <Fragment key={`text-${i}`}>{item}</Fragment>
    ) : (
      <Part key={item.props.id} part={item} uiComponents={uiComponents} />
    ),
  );
}
