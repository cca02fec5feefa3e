import {
  OraclesProvider,
  renderMessageContent,
  useAgAction,
  useChat,
  useContractOracle,
  useOracleSessions,
  type BrowserTools,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import type { OracleMockControl } from '@open-oracles/oracles-client-sdk/msw';
import { useMemo, useState, type ReactNode } from 'react';
import { z } from 'zod';

const wallet = {
  address: 'ixo1demouser',
  did: 'did:key:z6MkDemoUser',
  matrix: { accessToken: 'demo', homeServer: 'http://matrix.demo' },
};

// The demo mints stand-in tokens; a real app calls its wallet's UCAN signer here.
const token = (kind: string) => (oracleDid: string) =>
  Promise.resolve({
    serialized: btoa(`${kind}:${wallet.did}->${oracleDid}`),
    expiresAt: Date.now() + 3_600_000,
  });

const uiComponents: UIComponents = {
  WeatherCard: ({ city, temperature }: { city: string; temperature: number }) => (
    <div className="weather-card" data-testid="weather-card">
      <strong>{city}</strong> <span>{temperature} °C</span>
    </div>
  ),
  ToolCall: ({ toolName, status }: { toolName: string; status?: string }) => (
    <div className="tool-call" data-testid={`tool-${toolName}`}>
      🔧 {toolName} <em>{status}</em>
    </div>
  ),
};

const browserTools: BrowserTools = {
  readPageNote: {
    toolName: 'readPageNote',
    description: 'Reads the note the user typed on the page',
    schema: z.object({}),
    fn: () => (document.getElementById('page-note') as HTMLTextAreaElement | null)?.value ?? '',
  },
};

function Cards({ highlighted }: { highlighted: string | null }): ReactNode {
  return (
    <div className="cards">
      {['card-1', 'card-2', 'card-3'].map((id) => (
        <div key={id} id={id} className={highlighted === id ? 'card highlighted' : 'card'}>
          {id}
        </div>
      ))}
    </div>
  );
}

function Paywall({
  claims,
  oracleDid,
  onPaid,
}: {
  claims: string[];
  oracleDid: string;
  onPaid: () => void;
}): ReactNode {
  const { contractOracle, isContracting, error } = useContractOracle();
  return (
    <div className="paywall" role="dialog" data-testid="paywall">
      <h2>Out of credits</h2>
      <p>Unpaid claims: {claims.join(', ')}</p>
      <button
        disabled={isContracting}
        onClick={() =>
          void contractOracle({ oracleDid, amount: '1000000', memo: 'demo credits' }).then(onPaid)
        }
      >
        {isContracting ? 'Paying…' : 'Pay 1 IXO'}
      </button>
      {error && <p className="error">{error.message}</p>}
    </div>
  );
}

function Chat({ oracleDid, sessionId }: { oracleDid: string; sessionId: string }): ReactNode {
  const [draft, setDraft] = useState('');
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const [paywall, setPaywall] = useState<string[] | null>(null);
  useAgAction({
    name: 'highlight_card',
    description: 'Highlights one of the cards on the page',
    parameters: z.object({ cardId: z.enum(['card-1', 'card-2', 'card-3']) }),
    handler: ({ cardId }) => {
      setHighlighted(cardId);
      return { highlighted: cardId };
    },
    render: ({ status, args }) => (
      <div className="action" data-testid="action-render">
        ✨ {status === 'done' ? `Highlighted ${args.cardId ?? ''}` : 'Highlighting…'}
      </div>
    ),
  });
  const chat = useChat({
    oracleDid,
    sessionId,
    onPaymentRequiredError: setPaywall,
    uiComponents,
    browserTools,
  });
  return (
    <section className="chat">
      <header>
        <span data-testid="status">{chat.status}</span>
        <span className={chat.isRealTimeConnected ? 'dot on' : 'dot'} title="socket" data-testid="socket">
          {chat.isRealTimeConnected ? 'live' : 'offline'}
        </span>
      </header>
      <Cards highlighted={highlighted} />
      <label>
        Your note (the agent can read it):
        <textarea id="page-note" defaultValue="Buy maize seed before Friday." />
      </label>
      <ol className="messages" data-testid="messages">
        {chat.messages.map((m) => (
          <li key={m.id} className={m.type} data-testid={`message-${m.type}`}>
            {m.reasoning && (
              <details className="reasoning">
                <summary>Reasoning</summary>
                {m.reasoning}
              </details>
            )}
            {renderMessageContent(m.content, uiComponents)}
          </li>
        ))}
      </ol>
      {chat.sendMessageError && !paywall && <p className="error">{chat.sendMessageError.message}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim()) return;
          chat.sendMessage(draft);
          setDraft('');
        }}
      >
        <input
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Ask about the weather, your note, or highlight a card"
          data-testid="input"
        />
        {chat.isSending ? (
          <button type="button" onClick={() => void chat.abortStream()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!chat.isConfigReady}>
            Send
          </button>
        )}
      </form>
      {paywall && <Paywall claims={paywall} oracleDid={oracleDid} onPaid={() => setPaywall(null)} />}
    </section>
  );
}

function Sessions({
  oracleDid,
  current,
  onPick,
}: {
  oracleDid: string;
  current: string;
  onPick: (id: string) => void;
}): ReactNode {
  const { sessions, createSession, deleteSession, isLoading } = useOracleSessions(oracleDid);
  return (
    <aside className="sessions">
      <button onClick={() => void createSession().then((s) => onPick(s.sessionId))}>+ New chat</button>
      {isLoading && <p>Loading…</p>}
      <ul data-testid="sessions">
        {sessions.map((s) => (
          <li key={s.sessionId} className={s.sessionId === current ? 'current' : ''}>
            <button onClick={() => onPick(s.sessionId)}>{s.title ?? 'New chat'}</button>
            <button aria-label="delete" onClick={() => void deleteSession(s.sessionId)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** The demo: sessions, chat with streaming, a browser tool, an agent-UI action, a component, a paywall. */
export function App({ oracle }: { oracle: OracleMockControl }): ReactNode {
  const [sessionId, setSessionId] = useState('welcome');
  const [broke, setBroke] = useState(false);
  const createDelegation = useMemo(() => token('delegation'), []);
  const createInvocation = useMemo(() => token('invocation'), []);
  return (
    <OraclesProvider
      initialWallet={wallet}
      transactSignX={() => Promise.resolve({ transactionHash: 'DEADBEEF'.repeat(8) })}
      createDelegation={createDelegation}
      createInvocation={createInvocation}
      chainRestUrl={oracle.chainRestUrl}
    >
      <main>
        <h1>Oracle client SDK demo</h1>
        <label className="toggle">
          <input
            type="checkbox"
            checked={broke}
            data-testid="out-of-credits"
            onChange={(e) => {
              setBroke(e.target.checked);
              oracle.setPaymentRequired(e.target.checked ? ['claim-demo-1'] : false);
            }}
          />
          Out of credits (the oracle answers 402)
        </label>
        <div className="layout">
          <Sessions oracleDid={oracle.oracleDid} current={sessionId} onPick={setSessionId} />
          <Chat key={sessionId} oracleDid={oracle.oracleDid} sessionId={sessionId} />
        </div>
      </main>
    </OraclesProvider>
  );
}
