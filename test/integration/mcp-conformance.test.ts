/**
 * MCP's own conformance suite (@modelcontextprotocol/conformance) against /api/mcp on the local
 * stack, run as its CLI runs: with Node 22 (the suite needs it), one scenario at a time, each
 * failing this test when it does not pass. Node 22 comes from npm, the `node` package at a fixed
 * version through `npm exec` (npm's cache), and is used for the suite alone: as a devDependency
 * its `node` binary would sit first on every npm script's PATH, and `npm test` and `npm start`
 * would no longer run on the machine's Node 20.
 *
 * Every server scenario the suite lists is named here: the ones that apply to this server, which
 * must pass, and the ones that do not, with the reason. Those exercise the suite's own fixture
 * tools, resources and prompts (`test_simple_text`, `test://static-text`, `test_simple_prompt`…),
 * which a real server does not carry, or a session this stateless server does not keep. Some of
 * them "pass" anyway (an unknown tool is answered with a tool error, which is all some check);
 * they prove nothing here and are not counted. A scenario a later suite adds fails the first test
 * until it is placed in one list or the other.
 *
 * The suite reaches the stack through a forwarder bound to a loopback address of its own, so it
 * is one caller with a rate-limit budget of its own (MCP's per-caller limit, docs/SECURITY.md):
 * other files' MCP calls from 127.0.0.1 never spend it, nor it theirs. The forwarder names the
 * service's origin where a request names the forwarder's own (as the edge's host would be named);
 * any other Host or Origin, the DNS-rebinding scenario's `evil.example.com`, passes unchanged.
 */
import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const base = inject('baseUrl');
const run = promisify(execFile);
/** The Node the suite runs on: npm's `node` package, which fetches the platform's binary. */
const NODE_22_PACKAGE = 'node@22.23.3';
let node22: string;
const SUITE = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
/** The forwarder's own source address: no other test file calls from it. */
const SUITE_SOURCE = '127.0.0.53';

/** The scenarios that apply to a server without the suite's fixtures: each must pass. */
const APPLIES = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
] as const;

const FIXTURE_TOOL = (name: string) => `calls the suite's fixture tool ${name}, which this server does not carry`;
/** The scenarios that do not apply here, and why. */
const DOES_NOT_APPLY: Readonly<Record<string, string>> = {
  'completion-complete':
    "asks completion/complete for the suite's fixture prompt test_prompt_with_arguments; this server offers no completions",
  'tools-call-simple-text': FIXTURE_TOOL('test_simple_text'),
  'tools-call-image': FIXTURE_TOOL('test_image_content'),
  'tools-call-audio': FIXTURE_TOOL('test_audio_content'),
  'tools-call-embedded-resource': FIXTURE_TOOL('test_embedded_resource'),
  'tools-call-mixed-content': FIXTURE_TOOL('test_multiple_content_types'),
  'tools-call-with-logging': FIXTURE_TOOL('test_tool_with_logging'),
  'tools-call-error': FIXTURE_TOOL('test_error_handling'),
  'tools-call-with-progress': FIXTURE_TOOL('test_tool_with_progress'),
  'tools-call-sampling': FIXTURE_TOOL('test_sampling'),
  'tools-call-elicitation': FIXTURE_TOOL('test_elicitation'),
  'json-schema-2020-12': FIXTURE_TOOL('json_schema_2020_12_tool'),
  'elicitation-sep1034-defaults': FIXTURE_TOOL('test_elicitation_sep1034_defaults'),
  'elicitation-sep1330-enums': FIXTURE_TOOL('test_elicitation_sep1330_enums'),
  'server-sse-polling': FIXTURE_TOOL('test_reconnection') + ', on an SSE stream this server (JSON responses) does not open',
  'server-sse-multiple-streams':
    'opens concurrent SSE streams within a session; this server is stateless and answers JSON, so it issues no session id (the suite only warns)',
  'resources-read-text': "reads the suite's fixture resource test://static-text",
  'resources-read-binary': "reads the suite's fixture resource test://static-binary",
  'resources-templates-read': "reads the suite's fixture template test://template/{id}/data",
  'resources-subscribe':
    "subscribes to the suite's fixture resource test://watched-resource; a stateless server keeps no subscriptions and declares none",
  'resources-unsubscribe': "unsubscribes from the suite's fixture resource test://watched-resource (as resources-subscribe)",
  'prompts-get-simple': "gets the suite's fixture prompt test_simple_prompt",
  'prompts-get-with-args': "gets the suite's fixture prompt test_prompt_with_arguments",
  'prompts-get-embedded-resource': "gets the suite's fixture prompt test_prompt_with_embedded_resource",
  'prompts-get-with-image': "gets the suite's fixture prompt test_prompt_with_image",
};

/** The suite's CLI under Node 22; its exit code and output, whether it succeeded or not. */
async function suite(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(node22, [SUITE, ...args], { timeout: 60_000, maxBuffer: 8 * 1024 * 1024 });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (e) {
    const failed = e as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw e;
    return { code: failed.code, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A forwarder to the stack from SUITE_SOURCE (see the top of the file); its URL. */
function forwarder(target: URL): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { ...req.headers };
    if (headers.host === own) headers.host = target.host;
    if (headers.origin === `http://${own}`) headers.origin = target.origin;
    const out = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers, localAddress: SUITE_SOURCE },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

let forward: { server: Server; url: string };
beforeAll(async () => {
  forward = await forwarder(new URL(base));
  // Where npm put that Node's binary (fetched once, then from npm's cache): the suite is spawned with it directly.
  const { stdout } = await run(
    'npm',
    ['exec', '--yes', `--package=${NODE_22_PACKAGE}`, '--', 'node', '-p', 'process.execPath + " " + process.version'],
    {
      timeout: 240_000,
    },
  );
  const [path, version] = stdout.trim().split(' ');
  expect(version).toBe(`v${NODE_22_PACKAGE.split('@')[1]}`);
  node22 = path!;
}, 300_000);
afterAll(() => new Promise<void>((resolve) => (forward ? forward.server.close(() => resolve()) : resolve())));

describe("MCP's conformance suite", () => {
  it('names every server scenario it lists, in one list or the other', async () => {
    const { code, out } = await suite('list', '--server');
    expect(code, out).toBe(0);
    const listed = [...out.matchAll(/^\s*- ([a-z0-9-]+) \[/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThan(0);
    const named = [...APPLIES, ...Object.keys(DOES_NOT_APPLY)];
    expect(new Set(listed)).toEqual(new Set(named));
    expect(named).toHaveLength(new Set(named).size);
  }, 90_000);

  it.each(APPLIES)(
    '%s passes',
    async (scenario) => {
      const { code, out } = await suite('server', '--url', `${forward.url}/api/mcp`, '--scenario', scenario);
      const tally = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
      expect(tally, out).not.toBeNull();
      const [, passed, total, failed] = tally!.map(Number);
      expect({ code, failed, passed }, out).toEqual({ code: 0, failed: 0, passed: total });
      expect(total, out).toBeGreaterThan(0);
      // A Node 22 process per scenario, on machines shared with the rest of the suite.
    },
    90_000,
  );
});

describe('MCP protocol versions', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = async (body: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const initialize = (protocolVersion: string) =>
    post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'old-client', version: '0.1.0' } },
    });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18'])('a client of %s is answered in its version, and served in it', async (version) => {
    const init = await initialize(version);
    expect(init.status).toBe(200);
    expect(init.body.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'skill-market' } });
    expect(init.body.result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
    const tools = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
    expect(tools.status).toBe(200);
    expect(tools.body.result.tools.map((t: { name: string }) => t.name)).toContain('unlock_skill');
  });

  it('a version this server does not know is answered with the one it speaks; an unknown version header is refused', async () => {
    const init = await initialize('2023-01-01');
    expect(init.status).toBe(200);
    expect(init.body.result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(init.body.result.protocolVersion).not.toBe('2023-01-01');
    const refused = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2023-01-01' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: expect.any(Number) });
  });
});
