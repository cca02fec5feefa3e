// @vitest-environment node
// Server rendering (SSR) in plain Node: the hooks render their initial state without touching a browser
// global or starting network work (effects do not run on the server).
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { OraclesProvider, useChat, useOracleSessions, useOraclesConfig } from '../../src/index.js';

function Page() {
  const chat = useChat({
    oracleDid: 'did:ixo:entity:o',
    sessionId: 's',
    onPaymentRequiredError: () => undefined,
  });
  const { sessions } = useOracleSessions('did:ixo:entity:o');
  const { isConfigReady } = useOraclesConfig('did:ixo:entity:o');
  return <p>{`${chat.status} ${chat.messages.length} ${sessions.length} ${String(isConfigReady)}`}</p>;
}

describe('server rendering', () => {
  it('renders the initial state without fetching', () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    const html = renderToString(
      <OraclesProvider
        initialWallet={{ address: 'a', did: 'did:key:u', matrix: { accessToken: '', homeServer: '' } }}
        transactSignX={() => Promise.resolve('')}
        createDelegation={() => Promise.resolve({ serialized: 'd', expiresAt: Date.now() + 60_000 })}
        chainRestUrl="http://chain.test"
      >
        <Page />
      </OraclesProvider>,
    );
    expect(html).toBe('<p>ready 0 0 false</p>');
    expect(fetch).not.toHaveBeenCalled();
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
  });
});
