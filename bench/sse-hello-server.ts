// The event stream's baseline: a raw node:http server-sent-events hello-world. `GET /stream` holds a
// stream (retry hint first, like the platform's); `POST /broadcast?rate=&seconds=` sends every held
// stream `rate` events a second for `seconds`, each carrying its send time, as the platform's carry theirs.
import { createServer, type ServerResponse } from 'node:http';

const streams = new Set<ServerResponse>();
let seq = 0;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write('retry: 3000\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && url.pathname === '/broadcast') {
    const rate = Number(url.searchParams.get('rate'));
    const total = rate * Number(url.searchParams.get('seconds'));
    const t0 = Date.now();
    let sent = 0;
    const tick = () => {
      // Catch up to the schedule (timers drift under load), then wait for the next slot.
      while (sent < total && Date.now() - t0 >= (sent * 1000) / rate) {
        const id = `evt_hello${++seq}`;
        const frame = `id: ${seq}\nevent: hello\ndata: ${JSON.stringify({ id, type: 'hello', createdAt: new Date().toISOString(), data: { hello: 'world' } })}\n\n`;
        for (const s of streams) s.write(frame);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, t0 + (sent * 1000) / rate - Date.now()));
    };
    tick();
    res.end(JSON.stringify({ streams: streams.size, events: total }));
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
process.on('SIGTERM', () => {
  for (const s of streams) s.destroy();
  server.close(() => process.exit(0));
});
