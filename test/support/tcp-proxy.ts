// A TCP proxy a test owns, put between its processes and a shared service (PostgreSQL) to inject outages without
// touching the service: refuse() drops every connection and stops listening (connects get ECONNREFUSED), restore()
// listens again on the same port.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every proxied connection and refuses new ones. */
  refuse(): Promise<void>;
  /** Accepts connections again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

// Starts a proxy on a free 127.0.0.1 port forwarding to host:port.
export async function tcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  let listening = true;
  const stop = async (): Promise<void> => {
    if (listening) {
      listening = false;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        sockets.clear();
      });
    }
  };
  return {
    port,
    refuse: stop,
    async restore() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: stop,
  };
}
