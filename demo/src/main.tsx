import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import './styles.css';

async function start(): Promise<void> {
  // Phase 1: the oracle is mocked in the browser (msw service worker + WebSocket interception).
  const [{ setupWorker }, { oracle }] = await Promise.all([
    import('msw/browser'),
    import('./mock-oracle.js'),
  ]);
  const worker = setupWorker(...oracle);
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true });
  (window as unknown as { oracle: typeof oracle.control }).oracle = oracle.control;
  const root = document.getElementById('root');
  if (root) createRoot(root).render(<App oracle={oracle.control} />);
}

void start();
