/**
 * Child-process entry for dynalite, so the database has its own event loop (as DynamoDB
 * is its own service). Prints one JSON line `{"port":N}` once listening, `{"error":…}` if not.
 * Usage: node local/dynalite-process.mjs <port> [leveldb-path]
 */
import dynalite from 'dynalite';

const port = Number(process.argv[2] ?? '4567');
const path = process.argv[3];
// Tables become ACTIVE at once: the 500 ms CREATING default only slows start-up.
const server = dynalite({ ...(path ? { path } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.on('error', (err) => {
  process.stdout.write(`${JSON.stringify({ error: err.code ?? err.message })}\n`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Started with an IPC channel: when the parent dies, the channel closes and so does dynalite.
process.on('disconnect', stop);
