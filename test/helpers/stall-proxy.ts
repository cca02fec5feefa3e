import { once } from 'node:events';
import net from 'node:net';
import { pipeTo } from './tcp-proxy.js';

/**
 * A loopback TCP proxy that can stall: while stalled it accepts connections and reads nothing, forwards
 * nothing, answers nothing, as a paused server (SIGSTOP) or a dead network path does. Nothing is cut.
 */
export interface StallProxy extends AsyncDisposable {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  stall(): void;
  /** Bytes held back during the stall flow again. */
  resume(): void;
  close(): Promise<void>;
}

export async function startStallProxy(target: { host: string; port: number }): Promise<StallProxy> {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = pipeTo(target, client, sockets);
    // After pipe(), which resumes its sources.
    if (stalled) for (const sock of [client, upstream]) sock.pause();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const close = async (): Promise<void> => {
    for (const sock of sockets) sock.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() {
      return accepted;
    },
    stall() {
      stalled = true;
      for (const sock of sockets) sock.pause();
    },
    resume() {
      stalled = false;
      for (const sock of sockets) sock.resume();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return proxied.toString();
}
