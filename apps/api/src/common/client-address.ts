// The client address of a request: the socket's peer, or the X-Forwarded-For hop a configured proxy vouches for.
// Forwarded headers are trusted only from the addresses in TRUST_PROXY (none by default), so a client cannot choose
// its own address (rate limits, audit entries) by sending the header itself.
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

export type TrustFunction = (address: string, hop: number) => boolean;

/** Keywords proxy-addr understands besides addresses and CIDR ranges. */
const KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

// True when `entry` is an IP address, a CIDR range or a proxy-addr keyword.
export function isTrustEntry(entry: string): boolean {
  if (KEYWORDS.has(entry)) return true;
  try {
    proxyAddr.compile(entry);
    return true;
  } catch {
    return false;
  }
}

// The trust function for configured proxy addresses (empty: trust no forwarded header).
export function trustFunction(proxies: readonly string[]): TrustFunction {
  if (proxies.length === 0) return () => false;
  return proxyAddr.compile([...proxies]);
}

// The client address of a raw request under `trust` (the socket peer when no trusted proxy forwarded it).
export function clientAddress(req: IncomingMessage, trust: TrustFunction): string {
  return proxyAddr(req, trust) || req.socket.remoteAddress || 'unknown';
}
