// Baseline for bench/sync: a bare Node http server holding GETs until POST /release answers them all
// (MODE=304: answers If-None-Match "v1" with 304 at once, the revalidation baseline).
import http from 'node:http';

const body = Buffer.alloc(Number(process.env.BODY_BYTES ?? 1024), 'x');
const held = [];
const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/release') {
    const all = held.splice(0);
    for (const r of all) r.writeHead(200, { 'content-type': 'application/json', etag: '"v2"' }).end(body);
    res.end(String(all.length));
    return;
  }
  if (process.env.MODE === '304') {
    res.writeHead(req.headers['if-none-match'] === '"v1"' ? 304 : 200, { etag: '"v1"' }).end();
    return;
  }
  held.push(res);
});
server.keepAliveTimeout = 120_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
