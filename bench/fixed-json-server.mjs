// Baseline for HTTP benchmarks: a plain node:http server that answers every request with
// the same bytes (argv[3], a file) and status (argv[4]), on port argv[2], with the headers of
// argv[5] (a JSON file) if given, else a JSON content type and the length. Prints {"port":N}.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[3]);
const status = Number(process.argv[4] ?? '200');
const headers = process.argv[5]
  ? JSON.parse(readFileSync(process.argv[5], 'utf8'))
  : { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(status, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? '0'), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
