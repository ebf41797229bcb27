// Loopback networking helpers for tests.
import net from 'node:net';

// A TCP port on 127.0.0.1 nothing listens on right now (for a server that must know its URL before it starts).
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
