import type { ReactNode } from 'react';
import type { ToolCallComponentProps } from '../types.js';

const STATUS_TEXT = { isRunning: 'running…', done: 'done', error: 'failed' } as const;

/**
 * What a tool-call part renders with when the app gives no component for it (neither
 * `uiComponents[toolName]` nor `uiComponents.ToolCall`): one line with the tool's name and status, and the
 * error when it failed. Unstyled; hooks for CSS: `data-oracle-part="tool-call"`, `data-status`, `data-tool`.
 * Pass your own `ToolCall` (props: {@link ToolCallComponentProps}) to replace it.
 */
export function DefaultToolCall({ toolName, status, error, kind }: ToolCallComponentProps): ReactNode {
  const s = status ?? 'isRunning';
  return (
    <span data-oracle-part="tool-call" data-status={s} data-tool={toolName} data-kind={kind}>
      {`[${toolName}: ${STATUS_TEXT[s]}${s === 'error' && error ? ` (${error})` : ''}]`}
    </span>
  );
}
