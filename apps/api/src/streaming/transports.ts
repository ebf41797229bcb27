// Sends one batch to a destination over the network, bounded in time: syslog over TCP or TLS (one connection per batch,
// closed by us and confirmed closed by the collector, so a collector that went away is an error, not a silent loss),
// and HTTP(S) POSTs (2xx is delivered; anything else, a timeout or a reset is an error naming it).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

/** A delivery failure with a reason fit for the destination's lastError (never a secret). */
export class DeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** Largest part of an error answer kept in the reason. */
const ERROR_BODY_MAX = 512;

export interface SyslogTarget {
  host: string;
  port: number;
  timeoutMs: number;
  tls?: { ca: string; serverName?: string; cert?: string; key?: string };
}

// Writes the frames on one connection, half-closes it and waits until the collector closed its side: the collector
// has then read every byte (a stopped collector refuses or resets the connection instead).
export function sendSyslog(target: SyslogTarget, frames: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const where = `${target.tls ? 'syslog+tls' : 'syslog'}://${target.host}:${target.port}`;
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(new DeliveryError(`${where}: ${err.message}`));
      else resolve();
    };
    const onConnected = (): void => {
      socket.write(Buffer.concat(frames));
      socket.end();
    };
    const socket: net.Socket = target.tls
      ? tls.connect(
          {
            host: target.host,
            port: target.port,
            ca: [target.tls.ca],
            servername: target.tls.serverName ?? (net.isIP(target.host) ? undefined : target.host),
            ...(target.tls.serverName
              ? { checkServerIdentity: (_h, cert) => tls.checkServerIdentity(target.tls!.serverName!, cert) }
              : {}),
            ...(target.tls.cert && target.tls.key ? { cert: target.tls.cert, key: target.tls.key } : {}),
          },
          onConnected,
        )
      : net.connect({ host: target.host, port: target.port }, onConnected);
    const timer = setTimeout(() => finish(new Error(`timed out after ${target.timeoutMs} ms`)), target.timeoutMs);
    socket.on('error', (err) => finish(err));
    socket.on('data', () => undefined); // collectors do not answer; drain anything so the close is seen
    socket.on('close', (hadError) => finish(hadError ? new Error('connection closed with an error') : undefined));
  });
}

export interface HttpTarget {
  url: string;
  timeoutMs: number;
  ca?: string;
}

// POSTs a body; resolves on a 2xx answer, rejects naming the status (and the start of the answer) or the failure.
export function postHttp(target: HttpTarget, headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.url);
    const where = `${url.origin}${url.pathname}`;
    const lib = url.protocol === 'https:' ? https : http;
    let done = false;
    const finish = (err: Error | null, status = 0): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(new DeliveryError(`POST ${where}: ${err.message}`));
      } else resolve(status);
    };
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        agent: false,
        ...(url.protocol === 'https:' && target.ca ? { ca: [target.ca] } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < ERROR_BODY_MAX) chunks.push(c);
          size += c.length;
        });
        res.on('error', (err) => finish(err));
        res.on('end', () => {
          if (status >= 200 && status < 300) return finish(null, status);
          const text = Buffer.concat(chunks)
            .subarray(0, ERROR_BODY_MAX)
            .toString('utf8')
            .replace(/[^\x20-\x7e]+/g, ' ')
            .trim();
          finish(new Error(`answered ${status}${text ? `: ${text}` : ''}`));
        });
      },
    );
    const timer = setTimeout(() => finish(new Error(`timed out after ${target.timeoutMs} ms`)), target.timeoutMs);
    req.on('error', (err) => finish(err));
    req.end(body);
  });
}
