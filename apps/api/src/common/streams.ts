// Streams for exports: start answering only once the source has produced its first byte (or ended), so an error
// before that (a failed query) becomes a 4xx/5xx error answer instead of a 200 with a cut body.
import { PassThrough, type Readable } from 'node:stream';

// Resolves with a stream carrying `source` once it has data or has ended; rejects with its error if it fails first.
// Errors after the first byte destroy the returned stream (the client sees a cut transfer, never a complete one);
// destroying the returned stream (client gone) destroys the source.
export function primed(source: Readable): Promise<Readable> {
  return new Promise<Readable>((resolve, reject) => {
    const out = new PassThrough();
    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      resolve(out);
    };
    source.on('data', (chunk: Buffer | string) => {
      start();
      if (!out.write(chunk)) source.pause();
    });
    out.on('drain', () => source.resume());
    source.on('end', () => {
      start();
      out.end();
    });
    source.on('error', (err: Error) => {
      if (started) out.destroy(err);
      else {
        out.destroy();
        reject(err);
      }
    });
    out.on('close', () => {
      if (!source.destroyed) source.destroy();
    });
  });
}
