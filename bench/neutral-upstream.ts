/**
 * A neutral upstream for benchmarks: a loopback HTTP server, in its own process, that answers
 * every request with the same small JSON body and does nothing else (no signature check, no
 * logging), so that a figure measured against it is the client's alone. Prints its port.
 */
import { createServer } from 'node:http';

const body = Buffer.from(JSON.stringify({ resources: { record_data: [], total_cnt: 0 } }));
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
