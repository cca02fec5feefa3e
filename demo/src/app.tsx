import {
  OraclesProvider,
  renderMessageContent,
  useAgAction,
  useChat,
  useContractOracle,
  useOracleSessions,
  type BrowserTools,
  type IWalletProps,
  type SerializedUcan,
  type ToolApprovalComponentProps,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import { QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { z } from 'zod';

/** Where the demo's oracle lives and who the user is: the real local service, or the mocked one (MSW). */
export interface DemoBackend {
  /** `real`: the local server through Vite's proxy; `msw`: the SDK's mock kit in a service worker. */
  kind: 'real' | 'msw';
  oracleDid: string;
  chainRestUrl: string;
  wallet: IWalletProps;
  createDelegation: (oracleDid: string) => Promise<SerializedUcan>;
  createInvocation: (oracleDid: string) => Promise<SerializedUcan>;
  /** Pays on chain (the real backend: a transaction on the fixture chain); a stand-in hash otherwise. */
  transactSignX?: (messages: readonly unknown[], memo?: string) => Promise<{ transactionHash: string }>;
  /** MSW only: makes the mocked oracle answer 402 (the real one does when the user's credits run out). */
  setOutOfCredits?: (on: boolean) => void;
}

/**
 * The page's own TanStack Query client, passed to the provider: the SDK's server state (config, sessions,
 * models) lives in it, beside whatever else the app caches.
 */
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

/** The mocked oracle's stand-in transaction: a random hash, as a wallet would return after broadcasting. */
const standInTransactSignX = (): Promise<{ transactionHash: string }> => {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Promise.resolve({
    transactionHash: Array.from(bytes, (b) => b.toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase(),
  });
};

/**
 * The demo's approval card (`uiComponents.ToolApproval`): the tool and its arguments as the model sent them
 * (nothing ran yet), Approve, and Deny with a reason the model reads. A decision the oracle refuses (made
 * elsewhere first) is shown.
 */
function ToolApproval({ toolName, args, approve, deny }: ToolApprovalComponentProps): ReactNode {
  const [reason, setReason] = useState('');
  const [state, setState] = useState<'open' | 'sending' | 'refused'>('open');
  const decide = (run: () => Promise<void>) => () => {
    setState('sending');
    run().catch(() => setState('refused'));
  };
  return (
    <div className="approval" role="group" aria-label={`Approve ${toolName}?`} data-testid="approval">
      <p>
        The oracle wants to run <strong>{toolName}</strong> with
      </p>
      <pre data-testid="approval-args">{JSON.stringify(args, null, 2)}</pre>
      <button type="button" disabled={state !== 'open'} onClick={decide(approve)}>
        Approve
      </button>
      <input
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        placeholder="Reason (optional)"
        aria-label="Reason for declining"
        data-testid="approval-reason"
      />
      <button
        type="button"
        disabled={state !== 'open'}
        onClick={decide(() => deny(reason.trim() || undefined))}
      >
        Deny
      </button>
      {state === 'refused' && <p className="error">This call was decided already.</p>}
    </div>
  );
}

const uiComponents: UIComponents = {
  ToolApproval,
  WeatherCard: ({ city, temperature }: { city: string; temperature: number }) => (
    <div className="weather-card" data-testid="weather-card">
      <strong>{city}</strong> <span>{temperature} °C</span>
    </div>
  ),
  ToolCall: ({ toolName, status }: { toolName: string; status?: string }) => (
    <div className="tool-call" data-testid={`tool-${toolName}`}>
      Tool: {toolName} <em>{status === 'denied' ? 'declined' : status}</em>
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
        Action: {status === 'done' ? `Highlighted ${args.cardId ?? ''}` : 'Highlighting…'}
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
            {renderMessageContent(m.content)}
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
          placeholder="Ask about the weather, your note, to highlight a card, or to remember something"
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
  current: string | undefined;
  onPick: (id: string) => void;
}): ReactNode {
  const { sessions, createSession, deleteSession, isLoading } = useOracleSessions(oracleDid);
  // Opens the newest chat, or starts one for a user who has none yet.
  const started = useRef(false);
  useEffect(() => {
    if (current !== undefined || isLoading || started.current) return;
    started.current = true;
    const newest = sessions[0];
    if (newest) onPick(newest.sessionId);
    else void createSession('First chat').then((s) => onPick(s.sessionId));
  }, [current, isLoading, sessions, createSession, onPick]);
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

/**
 * The demo: sessions, chat with streaming, a browser tool, an agent-UI action, a component, a tool call that
 * waits for the user's approval, a paywall.
 */
export function App({
  backend,
  initialSessionId,
}: {
  backend: DemoBackend;
  initialSessionId?: string;
}): ReactNode {
  const [sessionId, setSessionId] = useState<string | undefined>(initialSessionId);
  const [broke, setBroke] = useState(false);
  const { setOutOfCredits } = backend;
  return (
    <OraclesProvider
      initialWallet={backend.wallet}
      transactSignX={backend.transactSignX ?? standInTransactSignX}
      createDelegation={backend.createDelegation}
      createInvocation={backend.createInvocation}
      chainRestUrl={backend.chainRestUrl}
      queryClient={queryClient}
    >
      <main>
        <h1>Oracle client SDK demo</h1>
        <p className="backend" data-testid="backend">
          {backend.kind === 'real'
            ? 'Oracle: the local service (real UCANs signed in this tab for a development user)'
            : 'Oracle: mocked in the browser (MSW)'}
        </p>
        {setOutOfCredits && (
          <label className="toggle">
            <input
              type="checkbox"
              checked={broke}
              data-testid="out-of-credits"
              onChange={(e) => {
                setBroke(e.target.checked);
                setOutOfCredits(e.target.checked);
              }}
            />
            Out of credits (the oracle answers 402)
          </label>
        )}
        <div className="layout">
          <Sessions oracleDid={backend.oracleDid} current={sessionId} onPick={setSessionId} />
          {sessionId && <Chat key={sessionId} oracleDid={backend.oracleDid} sessionId={sessionId} />}
        </div>
      </main>
    </OraclesProvider>
  );
}
