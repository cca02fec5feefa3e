import { createRoot } from 'react-dom/client';
import { App, type DemoBackend } from './app.js';
import './styles.css';

/** The oracle entity of the fixture chain that the local server embeds (fixtures/chain/entities.yaml). */
const LOCAL_ORACLE_DID = 'did:ixo:entity:oracle7d1e3c9a2b';

/**
 * `npm run demo` (Vite mode `real`): the real local service behind Vite's proxy, on this page's origin. The
 * chain gateway's entity route resolves the oracle to this origin; tokens are real UCANs signed in the tab.
 */
async function realBackend(): Promise<DemoBackend> {
  const { demoUser, devTransactSignX, ucanCallbacks } = await import('./dev-signer.js');
  const user = await demoUser();
  return {
    kind: 'real',
    oracleDid: LOCAL_ORACLE_DID,
    chainRestUrl: window.location.origin,
    wallet: {
      address: 'ixo1demouser',
      did: user.did(),
      matrix: { accessToken: 'unused', homeServer: 'http://matrix.invalid' },
    },
    ...ucanCallbacks(user),
    // Pays with a real transaction on the fixture chain, through the development broadcast.
    transactSignX: devTransactSignX(window.location.origin),
  };
}

/** `npm run demo:msw`: the SDK's mock kit in a service worker, with stand-in tokens. */
async function mswBackend(): Promise<DemoBackend> {
  const [{ setupWorker }, { oracle }] = await Promise.all([
    import('msw/browser'),
    import('./mock-oracle.js'),
  ]);
  const worker = setupWorker(...oracle);
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true });
  (window as unknown as { oracle: typeof oracle.control }).oracle = oracle.control;
  const did = 'did:key:z6MkDemoUser';
  const token = (kind: string) => (oracleDid: string) =>
    Promise.resolve({ serialized: btoa(`${kind}:${did}->${oracleDid}`), expiresAt: Date.now() + 3_600_000 });
  return {
    kind: 'msw',
    oracleDid: oracle.control.oracleDid,
    chainRestUrl: oracle.control.chainRestUrl,
    wallet: {
      address: 'ixo1demouser',
      did,
      matrix: { accessToken: 'demo', homeServer: 'http://matrix.demo' },
    },
    createDelegation: token('delegation'),
    createInvocation: token('invocation'),
    setOutOfCredits: (on) => oracle.control.setPaymentRequired(on ? ['claim-demo-1'] : false),
  };
}

async function start(): Promise<void> {
  const mode = (import.meta as ImportMeta & { env: { MODE: string } }).env.MODE;
  const backend = mode === 'msw' ? await mswBackend() : await realBackend();
  const root = document.getElementById('root');
  if (root)
    createRoot(root).render(
      <App backend={backend} {...(backend.kind === 'msw' ? { initialSessionId: 'welcome' } : {})} />,
    );
}

void start();
