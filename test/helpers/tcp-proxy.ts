import { once } from 'node:events';
import net from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL, Redis) that a test can cut and restore, to
 * make a dependency unreachable and come back on the same address without touching the server itself.
 */
export interface TcpProxy extends AsyncDisposable {
  readonly port: number;
  /** Closes the listener and every open connection: new connections are refused. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;

  const listen = async (onPort: number): Promise<number> => {
    const s = net.createServer((client) => void pipeTo(target, client, sockets));
    s.listen(onPort, '127.0.0.1');
    await once(s, 'listening');
    server = s;
    return (s.address() as net.AddressInfo).port;
  };

  const boundPort = await listen(port);
  const cut = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port: boundPort,
    cut,
    async restore() {
      if (!server) await listen(boundPort);
    },
    close: cut,
    [Symbol.asyncDispose]: cut,
  };
}

/**
 * Joins an accepted client to a new connection to `target`, both ways; each socket is tracked in `sockets`
 * while open, and an error on either side closes both. Returns the upstream socket.
 */
export function pipeTo(
  target: { host: string; port: number },
  client: net.Socket,
  sockets: Set<net.Socket>,
): net.Socket {
  const upstream = net.connect(target.port, target.host);
  for (const sock of [client, upstream]) {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream).pipe(client);
  return upstream;
}
