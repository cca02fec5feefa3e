// The light install: only `.` and `./chain`, without the optional peers (msw, livekit-client, @ucanto/*).
// Type-checked in a fresh app that installed the tarball with react, react-dom and zod alone.
import {
  OraclesProvider,
  oracleKeys,
  renderMessageContent,
  useChat,
  useUserPreferences,
} from '@open-oracles/oracles-client-sdk';
import { createChainClient } from '@open-oracles/oracles-client-sdk/chain';
import type { ReactNode } from 'react';

function Chat(): ReactNode {
  const chat = useChat({
    oracleDid: 'did:ixo:entity:o',
    sessionId: '',
    onPaymentRequiredError: () => undefined,
  });
  const { preferences } = useUserPreferences('did:ixo:entity:o');
  return (
    <div title={preferences?.language}>
      {chat.messages.map((m) => (
        <p key={m.id}>{renderMessageContent(m.content)}</p>
      ))}
    </div>
  );
}

export function App(): ReactNode {
  return (
    <OraclesProvider
      initialWallet={{ address: 'ixo1', did: 'did:key:z6Mk', matrix: { accessToken: '', homeServer: '' } }}
      transactSignX={() => Promise.resolve('tx')}
      createDelegation={() => Promise.resolve({ serialized: 'x', expiresAt: Date.now() + 60_000 })}
      overrides={{ baseUrl: 'http://localhost:3000' }}
    >
      <Chat />
    </OraclesProvider>
  );
}

export const extras = [oracleKeys.all, createChainClient({ baseUrl: 'https://rest.example.org' })];
