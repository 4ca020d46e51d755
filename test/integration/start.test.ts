import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { testAccount } from '../../local/anvil';
import { localChain } from '../../local/local-chain';
import { killStarted, runStart, userEnv } from '../support/spawn-start';
import { childPids, exitsSoon } from '../support/processes';

const dirs: string[] = [];
afterAll(() => {
  killStarted();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe('npm start', () => {
  it('starts on real parts, stops every child on Ctrl-C, and finds its data again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'market-data-'));
    dirs.push(dataDir);

    const first = await runStart({ DATA_DIR: dataDir });
    expect(first.output()).toMatch(/USDC\s+0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913/);
    const ready = (await (await fetch(`${first.baseUrl}/api/ready`)).json()) as { ready: boolean };
    expect(ready.ready).toBe(true);
    // A clean first start says nothing alarming (issue 51): no ERROR or FAILED line, no client's timeout warning.
    const alarming = (out: string) => out.split('\n').filter((line) => /\bERROR\b|FAILED|requestTimeout/.test(line));
    expect(alarming(first.output())).toEqual([]);

    // Leave a trace on the chain: a transfer from buyer account 1.
    const rpcUrl = /RPC\s+(http:\/\/\S+)/.exec(first.output())![1]!;
    const chain = localChain(rpcUrl);
    const wallet = createWalletClient({ account: testAccount(1), chain, transport: http(rpcUrl) });
    const hash = await wallet.sendTransaction({ to: testAccount(2).address, value: parseEther('1') });
    const block = (await createPublicClient({ chain, transport: http(rpcUrl) }).waitForTransactionReceipt({ hash })).blockNumber;

    const children = childPids(first.child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(2); // DynamoDB Local and anvil
    expect(await first.interrupt()).toBe(0);
    for (const pid of children) expect(await exitsSoon(pid), `child ${pid} still running`).toBe(true);

    const second = await runStart({ DATA_DIR: dataDir });
    try {
      const rpc2 = /RPC\s+(http:\/\/\S+)/.exec(second.output())![1]!;
      const receipt = await createPublicClient({ chain: localChain(rpc2), transport: http(rpc2) }).getTransactionReceipt({ hash });
      expect(receipt.blockNumber).toBe(block);
      const ready2 = (await (await fetch(`${second.baseUrl}/api/ready`)).json()) as { ready: boolean };
      expect(ready2.ready).toBe(true);
      expect(alarming(second.output())).toEqual([]);
    } finally {
      await second.interrupt();
    }
    // Two whole starts, each bundling the server and building the catalog: on a 2-core machine
    // shared with the rest of the suite, more than the default 30 s.
  }, 90_000);

  it('writes where it runs for every tool, which finds it with no flag; the banner lists each tool; the file goes on Ctrl-C', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'market-data-'));
    const packs = mkdtempSync(join(tmpdir(), 'packs-'));
    dirs.push(dataDir, packs);
    // Every port other than the default (PORT, ANVIL_PORT, DYNAMODB_PORT are 0: free ports), the file in its default place.
    const started = await runStart({ DATA_DIR: dataDir, ENDPOINTS_FILE: '' });
    const file = join(dataDir, 'endpoints.json');
    const banner = started.output();
    try {
      const written = JSON.parse(readFileSync(file, 'utf8'));
      expect(written).toMatchObject({
        pid: started.child.pid,
        baseUrl: started.baseUrl,
        rpcUrls: [/RPC\s+(http:\/\/\S+)/.exec(banner)![1]],
        dynamodbEndpoint: /DynamoDB\s+(http:\/\/\S+)/.exec(banner)![1],
        dataDir,
        settings: { TREASURY_ADDRESS: expect.stringMatching(/^0x/) },
      });
      expect(banner).toContain(`Endpoints       ${file}`);
      for (const tool of ['buy', 'verify-receipt', 'reconcile', 'export', 'revenue', 'unmatched', 'refund'])
        expect(banner, tool).toMatch(new RegExp(`npm run ${tool}\\b`));
      // The tools need no address: a user's shell with DATA_DIR, as it started (nothing else set).
      const tool = (script: string, ...args: string[]) =>
        new Promise<{ code: number; out: string; err: string }>((resolve) =>
          execFile(
            process.execPath,
            ['--import', 'tsx', script, ...args],
            { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { ...userEnv(), DATA_DIR: dataDir, ENDPOINTS_FILE: '' } },
            (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
          ),
        );
      const bought = await tool('local/buy.ts', 'agent-x402-first-buy', '--out', packs);
      expect(bought.code, bought.err).toBe(0);
      // As the README gives it: the receipt checked against the running service's key.
      const verified = await tool('local/verify-receipt.ts', `@${join(packs, 'agent-x402-first-buy.receipt.jws')}`);
      expect(verified.code, verified.err).toBe(0);
      const sale = JSON.parse(readFileSync(join(packs, 'agent-x402-first-buy.receipt.json'), 'utf8')).txHash as string;
      expect(JSON.parse(verified.out)).toMatchObject({ iss: started.baseUrl, tx: sale.toLowerCase() });
      // 2 is "could not run" (no chain or database there); 0 or 1 is an answer from this start's.
      const reconciled = await tool('local/reconcile.ts');
      expect(reconciled.code, reconciled.err).not.toBe(2);
      const unmatched = await tool('local/unmatched.ts');
      expect(unmatched.code, unmatched.err).not.toBe(2);
      // The sale is no refund of itself: refused (1) after reading it on this chain and in this database.
      const refund = await tool('local/refund.ts', sale, sale);
      expect(refund.code, refund.err).toBe(1);
      expect(JSON.parse(refund.out)).toMatchObject({ outcome: 'refused' });
      const exported = await tool('local/export.ts');
      expect(exported.code, exported.err).toBe(0);
      expect(exported.out.trim().startsWith(join(dataDir, 'exports'))).toBe(true);
      // With no directory: the newest export of this start's data dir.
      const revenue = await tool('local/revenue.ts');
      expect(revenue.code, revenue.err).toBe(0);
      expect(revenue.out).toMatch(/^day,channel,/);
      expect(revenue.out).toContain('agent-x402-first-buy');
    } finally {
      expect(await started.interrupt()).toBe(0);
    }
    // Stopped: nothing points at it any more.
    expect(existsSync(file)).toBe(false);
  }, 180_000);

  it('names the env var to change when the port is busy', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await runStart({ EPHEMERAL: '1', PORT: String(port) }).then(
        () => undefined,
        (e: Error & { output?: string; code?: number }) => e,
      );
      expect(err?.code).toBe(1);
      expect(err?.output).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}: the port is busy\\. Set PORT to a free port`));
    } finally {
      blocker.close();
    }
  });

  it('reports not ready, with the failing check, when the treasury is the legacy address', async () => {
    const legacy = inject('legacyTreasury');
    const started = await runStart({
      EPHEMERAL: '1',
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      RPC_URLS: inject('rpcUrl'),
      USDC_ADDRESS: inject('usdc'),
      USDBC_ADDRESS: inject('usdbc'),
      TREASURY_ADDRESS: legacy.toLowerCase(),
      LEGACY_TREASURY_ADDRESS: legacy,
    });
    try {
      const body = (await (await fetch(`${started.baseUrl}/api/ready`)).json()) as {
        ready: boolean;
        checks: { name: string; ok: boolean; detail: string }[];
      };
      expect(body.ready).toBe(false);
      const money = body.checks.find((c) => c.name === 'money_safety')!;
      expect(money.ok).toBe(false);
      expect(money.detail).toMatch(/banned legacy treasury/);
      // Payments refuse to run on an unsafe configuration, so no challenge can be built either.
      expect(
        body.checks
          .filter((c) => !c.ok)
          .map((c) => c.name)
          .sort(),
      ).toEqual(['challenge_live_402', 'challenge_shape', 'money_safety']);
    } finally {
      await started.interrupt();
    }
  });

  it('reports the chain check failing when no RPC provider answers', async () => {
    const started = await runStart({
      EPHEMERAL: '1',
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      RPC_URLS: 'http://127.0.0.1:9',
      USDC_ADDRESS: inject('usdc'),
      USDBC_ADDRESS: inject('usdbc'),
      TREASURY_ADDRESS: inject('treasury'),
    });
    try {
      const body = (await (await fetch(`${started.baseUrl}/api/ready`)).json()) as {
        ready: boolean;
        checks: { name: string; ok: boolean }[];
      };
      expect(body.ready).toBe(false);
      expect(body.checks.find((c) => c.name === 'chain')!.ok).toBe(false);
    } finally {
      await started.interrupt();
    }
  });
});
