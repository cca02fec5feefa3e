import { useState, type ReactNode } from 'react';
import type { ToolApprovalComponentProps } from '../types.js';

/**
 * What a tool call that waits for the user's approval renders with when the app gives no `ToolApproval`
 * component: the tool's name and arguments, with Approve and Deny buttons (disabled once one is pressed; a
 * decision the oracle refuses, e.g. one made elsewhere first, is shown). Unstyled; hooks for CSS:
 * `data-oracle-part="tool-approval"`, `data-tool`.
 */
export function DefaultToolApproval({
  toolName,
  args,
  approve,
  deny,
}: ToolApprovalComponentProps): ReactNode {
  const [state, setState] = useState<'open' | 'sending' | 'failed'>('open');
  const decide = (run: () => Promise<void>) => () => {
    setState('sending');
    run().then(
      () => undefined,
      () => setState('failed'),
    );
  };
  return (
    <span
      data-oracle-part="tool-approval"
      data-tool={toolName}
      style={{ display: 'block', margin: '0.25em 0' }}
    >
      {`${toolName} wants to run with ${JSON.stringify(args)}. `}
      <button type="button" disabled={state !== 'open'} onClick={decide(approve)}>
        Approve
      </button>{' '}
      <button type="button" disabled={state !== 'open'} onClick={decide(() => deny())}>
        Deny
      </button>
      {state === 'failed' ? ' (this call was decided already)' : null}
    </span>
  );
}
