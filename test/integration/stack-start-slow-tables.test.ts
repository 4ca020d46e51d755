/**
 * A first start on a loaded machine: DynamoDB Local's first table creations (a cold JVM, twelve
 * tables at once) may each take longer than the handlers' 3 s request timeout. The start waits for
 * them without a word (issue 51: 22 `requestTimeout` warnings before the banner of one first start).
 */
import { createServer, request, type Server } from 'node:http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocalHandle } from '../../local/dynamodb-local';
import { startStack } from '../../local/stack';
import { freePort } from '../support/processes';

/** How long the stand-in holds each DynamoDB request: longer than the handlers' client waits (3 s) without a warning. */
const SLOW_MS = 3_300;

let dynamo: DynamoDbLocalHandle | undefined;
let slow: Server | undefined;
afterAll(async () => {
  slow?.close();
  await dynamo?.stop();
});

/** DynamoDB Local behind a stand-in that answers every request SLOW_MS late, as a loaded machine's cold JVM does. */
async function slowDynamo(): Promise<string> {
  dynamo = await startDynamoDbLocal({ port: 0 });
  const target = new URL(dynamo.endpoint);
  slow = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () =>
      setTimeout(() => {
        const out = request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(body));
      }, SLOW_MS),
    );
  });
  const port = await freePort();
  await new Promise<void>((resolve) => slow!.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${port}`;
}

// One stack per file: the DynamoDB client is one per process, as in a Lambda, and keeps the first stack's endpoint.
describe('the local stack on a slow DynamoDB Local', () => {
  it('creates its tables without a client timeout warning', async () => {
    const endpoint = await slowDynamo();
    const warned: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(' ')));
    try {
      const stack = await startStack({ port: 0, anvilPort: 0, dynamoPort: 0, dataDir: undefined, env: { DYNAMODB_ENDPOINT: endpoint } });
      await stack.stop();
    } finally {
      warn.mockRestore();
    }
    expect(warned.filter((line) => /requestTimeout|timed out/i.test(line))).toEqual([]);
  }, 60_000);
});
