// Touches every export of every entry point, as an app would, so the type-check below proves the published
// declarations (this file is type-checked in a fresh app with the packed tarball installed).
import {
  getOpenIdToken,
  OracleRequestError,
  OraclesProvider,
  renderMessageContent,
  useAgAction,
  useChat,
  useContractOracle,
  useGetOpenIdToken,
  useMemoryEngine,
  useModels,
  useOracleSessions,
  useOraclesConfig,
  useOraclesContext,
  useUserPreferences,
  defineBrowserTool,
  oracleKeys,
  type AnyEvent,
  type IChatOptions,
  type IMessage,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import {
  CHAIN_DEFAULT_PREFIX,
  chainContract,
  CosmosError,
  createChainClient,
} from '@open-oracles/oracles-client-sdk/chain';
import { useLiveAgent } from '@open-oracles/oracles-client-sdk/live-agent';
import { createOracleHandlers, DEFAULT_SCRIPT, MockRun } from '@open-oracles/oracles-client-sdk/msw';
import { createDevSigner, ORACLE_CAPABILITIES } from '@open-oracles/oracles-client-sdk/dev';
import { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { z } from 'zod';

const uiComponents: UIComponents = { WeatherCard: ({ city }: { city: string }) => <b>{city}</b> };

export function Chat({ oracleDid, sessionId }: { oracleDid: string; sessionId: string }): ReactNode {
  const options: IChatOptions = {
    oracleDid,
    sessionId,
    onPaymentRequiredError: (claimIds: string[]) => console.log(claimIds.join(',')),
    uiComponents,
    streamingMode: 'batched',
    browserTools: {
      title: { toolName: 'title', description: 'page title', schema: z.object({}), fn: () => document.title },
    },
  };
  const chat = useChat(options);
  useAgAction({
    name: 'highlight',
    description: 'Highlights a card',
    parameters: z.object({ cardId: z.string() }),
    handler: ({ cardId }) => ({ highlighted: cardId }),
    render: ({ status, args }) => <i>{`${args.cardId ?? ''} ${status}`}</i>,
  });
  const sessions = useOracleSessions(oracleDid);
  const config = useOraclesConfig(oracleDid, { baseUrl: 'http://localhost:3000' });
  const { contractOracle } = useContractOracle();
  const memory = useMemoryEngine();
  const { openIdToken } = useGetOpenIdToken();
  const { models } = useModels(oracleDid);
  const { preferences } = useUserPreferences(oracleDid);
  const { wallet } = useOraclesContext();
  const call = useLiveAgent({ createE2EEWorker: () => new Worker('e2ee-worker.js') });
  const messages: IMessage[] = chat.messages;
  const event: AnyEvent | undefined = undefined;
  void [
    sessions.total,
    config.isConfigReady,
    contractOracle,
    memory.remember,
    openIdToken,
    models,
    preferences?.language,
    wallet.did,
    call.state,
    event,
  ];
  const err: Error | undefined = chat.error ?? chat.sendMessageError;
  return (
    <div>
      {messages.map((m) => (
        <p key={m.id}>{renderMessageContent(m.content, uiComponents)}</p>
      ))}
      <button onClick={() => chat.sendMessage('hi')} disabled={chat.isSending}>
        {chat.status} {String(chat.isRealTimeConnected)} {err?.message}
      </button>
      <button onClick={() => void chat.abortStream()}>stop</button>
    </div>
  );
}

export function App(): ReactNode {
  return (
    <OraclesProvider
      initialWallet={{
        address: 'ixo1',
        did: 'did:key:z6Mk',
        matrix: { accessToken: 't', homeServer: 'https://m.org' },
      }}
      transactSignX={() => Promise.resolve({ transactionHash: 'AB' })}
      createDelegation={() => Promise.resolve({ serialized: 'x', expiresAt: Date.now() + 60_000 })}
      createInvocation={() => Promise.resolve({ serialized: 'y', expiresAt: Date.now() + 60_000 })}
      chainRestUrl="https://rest.example.org"
      queryClient={new QueryClient()}
    >
      <Chat oracleDid="did:ixo:entity:o" sessionId="s" />
    </OraclesProvider>
  );
}

const title = defineBrowserTool({
  toolName: 'title',
  description: 'page title',
  schema: z.object({ upper: z.boolean() }),
  fn: ({ upper }) => (upper ? document.title.toUpperCase() : document.title),
});

export const extras = [
  title,
  oracleKeys.sessions('did:ixo:entity:o'),
  createDevSigner({ seed: 'dev' }).then((s) => s.did),
  ORACLE_CAPABILITIES.delegation.can,
  getOpenIdToken,
  OracleRequestError,
  CHAIN_DEFAULT_PREFIX,
  chainContract,
  CosmosError,
  createChainClient({ baseUrl: 'https://rest.example.org' }),
  createOracleHandlers({ paymentRequired: ['c1'] }).control.oracleDid,
  DEFAULT_SCRIPT,
  MockRun,
];
