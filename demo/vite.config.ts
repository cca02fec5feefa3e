import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const sdk = (file: string): string => fileURLToPath(new URL(`../sdk/src/${file}`, import.meta.url));

// The demo imports the SDK by its package name; here the name resolves to the SDK's sources, so the demo
// needs no build of the package first.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@open-oracles\/oracles-client-sdk$/, replacement: sdk('index.ts') },
      { find: /^@open-oracles\/oracles-client-sdk\/(msw|chain|live-agent|dev)$/, replacement: sdk('$1.ts') },
    ],
  },
  server: { port: Number(process.env['DEMO_PORT'] ?? 5173), strictPort: true },
  preview: { port: Number(process.env['DEMO_PORT'] ?? 5173), strictPort: true },
});
