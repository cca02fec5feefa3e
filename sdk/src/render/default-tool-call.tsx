import type { ReactNode } from 'react';
import type { ToolCallComponentProps } from '../types.js';

const STATUS_TEXT = {
  isRunning: 'running…',
  done: 'done',
  error: 'failed',
  awaiting_approval: 'waiting for your approval',
  denied: 'declined',
} as const satisfies Record<NonNullable<ToolCallComponentProps['status']>, string>;

/**
 * A line of its own, apart from the answer's text around it (inline, it would read "TRIAL CHAT[pageTitle: done]").
 * A `span` shown as a block rather than a `div`, so that it stays valid inside an app's `<p>`.
 */
const LINE_OF_ITS_OWN = { display: 'block', margin: '0.25em 0' } as const;

/**
 * What a tool-call part renders with when the app gives no component for it (neither
 * `uiComponents[toolName]` nor `uiComponents.ToolCall`): a line of its own with the tool's name and status, and
 * the error when it failed. Otherwise unstyled; hooks for CSS: `data-oracle-part="tool-call"`, `data-status`,
 * `data-tool`.
 * Pass your own `ToolCall` (props: {@link ToolCallComponentProps}) to replace it.
 */
export function DefaultToolCall({ toolName, status, error, kind }: ToolCallComponentProps): ReactNode {
  const s = status ?? 'isRunning';
  return (
    <span
      data-oracle-part="tool-call"
      data-status={s}
      data-tool={toolName}
      data-kind={kind}
      style={LINE_OF_ITS_OWN}
    >
      {`[${toolName}: ${STATUS_TEXT[s]}${s === 'error' && error ? ` (${error})` : ''}]`}
    </span>
  );
}
