import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { buy, BuyError, USAGE } from '../../local/buy';
import { freePort } from '../../local/free-port';
import { createPublicClient, erc20Abi, http } from 'viem';
import { chainTools } from '../support/chain';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run verify-receipt -- @<file> …`, as the README gives it. */
const verifyReceipt = (...args: string[]): Promise<{ code: number; out: string; err: string }> =>
  new Promise((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', 'local/verify-receipt.ts', ...args], { cwd: root }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    ),
  );

/** What `buy` kept beside the pack: the record (with the license) and the sale's signed receipt. */
function kept(out: string, skill: string): { record: { txHash?: string; license?: { token?: string } }; jws: string } {
  return {
    record: JSON.parse(readFileSync(join(out, `${skill}.receipt.json`), 'utf8')),
    jws: readFileSync(join(out, `${skill}.receipt.jws`), 'utf8').trim(),
  };
}

describe('npm run buy', () => {
  it('runs the purchase sequence for the canary with a funded account, saves the files and checks the seal', async () => {
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const lines: string[] = [];
    // A wallet of its own: the default account 1 may already own the canary (other files buy with it), and an owner is not charged.
    const account = testAccount(64);
    const chain = chainTools(inject('rpcUrl'));
    await chain.setTokenBalance(inject('usdc') as `0x${string}`, account.address, 10n ** 8n);
    await chain.setEthBalance(account.address, 10n ** 18n);
    const result = await buy(
      {
        skill: 'agent-x402-first-buy',
        baseUrl: inject('baseUrl'),
        rpcUrl: inject('rpcUrl'),
        account,
        asset: 'USDC',
        outDir: out,
      },
      (l) => lines.push(l),
    );
    expect(lines.filter((l) => /^\[\d\/8\]/.test(l))).toHaveLength(8);
    expect(result.files).toContain('SKILL.md');
    expect(readFileSync(join(out, 'agent-x402-first-buy', 'SKILL.md'), 'utf8')).toMatch(
      /^---\nname: agent-x402-first-buy\n[^]*?\n---\n\n# /,
    );
    const receipt = JSON.parse(readFileSync(join(out, 'agent-x402-first-buy.receipt.json'), 'utf8'));
    expect(receipt.txHash).toBe(result.txHash);
    expect(receipt.license.token).toEqual(expect.any(String));
    // The sale's signed receipt, beside it: what `npm run verify-receipt -- @packs/<skill>.receipt.jws` reads.
    const checked = await verifyReceipt(`@${join(out, 'agent-x402-first-buy.receipt.jws')}`, '--issuer', inject('baseUrl'));
    expect(checked.code, checked.err).toBe(0);
    expect(JSON.parse(checked.out)).toMatchObject({ sub: 'agent-x402-first-buy', kind: 'unlock', tx: result.txHash!.toLowerCase() });
  });

  it('with --x402 pays the standard way: a stock client signs, the service settles, the same files and ledger row', async () => {
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const account = testAccount(20);
    await chainTools(inject('rpcUrl')).setTokenBalance(inject('usdc') as `0x${string}`, account.address, 10n ** 8n);
    const lines: string[] = [];
    const result = await buy(
      {
        skill: 'agent-x402-first-buy',
        baseUrl: inject('baseUrl'),
        rpcUrl: inject('rpcUrl'),
        account,
        asset: 'USDC',
        outDir: out,
        x402: true,
      },
      (l) => lines.push(l),
    );
    expect(lines.filter((l) => /^\[\d\/8\]/.test(l))).toHaveLength(8);
    expect(lines.join('\n')).toMatch(/EIP-3009 authorization/);
    expect(result.files).toContain('SKILL.md');
    expect((result.proofRow as { txHash: string }).txHash).toBe(result.txHash!.toLowerCase());
  });

  it('an owner is not charged again: it signs in and saves the same files; --force buys again on purpose', async () => {
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const account = testAccount(65);
    const chain = chainTools(inject('rpcUrl'));
    const usdc = inject('usdc') as `0x${string}`;
    await chain.setTokenBalance(usdc, account.address, 10n ** 8n);
    await chain.setEthBalance(account.address, 10n ** 18n);
    const opts = {
      skill: 'agent-x402-first-buy',
      baseUrl: inject('baseUrl'),
      rpcUrl: inject('rpcUrl'),
      account,
      asset: 'USDC' as const,
      outDir: out,
    };
    const first = await buy(opts, () => undefined);
    expect(first.owned).toBe(false);
    const bought = kept(out, opts.skill);
    expect(bought.record.license?.token).toEqual(expect.any(String));
    const pub = createPublicClient({ transport: http(inject('rpcUrl')) });
    const balance = () => pub.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
    const paid = await balance();

    const lines: string[] = [];
    const again = await buy(opts, (l) => lines.push(l));
    expect(again).toMatchObject({ owned: true, txHash: first.txHash, seal: first.seal });
    expect(lines.join('\n')).toMatch(/already has agent-x402-first-buy by your purchase/);
    expect(lines.filter((l) => /^\[\d\/8\]/.test(l))).toHaveLength(8);
    expect(await balance()).toBe(paid);
    // The owner's sign-in answers no license: the one the sale gave is kept, and so is the sale's receipt.
    const again2 = kept(out, opts.skill);
    expect(again2.record).toMatchObject({ txHash: first.txHash, license: { token: bought.record.license!.token } });
    const owner = await verifyReceipt(`@${join(out, `${opts.skill}.receipt.jws`)}`, '--issuer', inject('baseUrl'));
    expect(owner.code, owner.err).toBe(0);
    expect(JSON.parse(owner.out).tx).toBe(first.txHash!.toLowerCase());

    const forced = await buy({ ...opts, force: true }, () => undefined);
    expect(forced.owned).toBe(false);
    expect(forced.txHash).not.toBe(first.txHash);
    expect(await balance()).toBeLessThan(paid);
    // A second sale: its files are the skill's receipt now, and the first sale's are kept under its transaction.
    expect(kept(out, opts.skill).record.txHash).toBe(forced.txHash);
    const earlier = join(out, `${opts.skill}.${first.txHash}.receipt`);
    expect(JSON.parse(readFileSync(`${earlier}.json`, 'utf8')).license.token).toBe(bought.record.license!.token);
    expect(readFileSync(`${earlier}.jws`, 'utf8').trim()).toBe(bought.jws);
    expect(existsSync(join(out, `${opts.skill}.receipt.jws`))).toBe(true);
  });

  it('says in one sentence what to do: a wallet short of USDC sends nothing, an unreachable service is named, --help is the usage', async () => {
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const poor = testAccount(66);
    const chain = chainTools(inject('rpcUrl'));
    await chain.setTokenBalance(inject('usdc') as `0x${string}`, poor.address, 0n);
    await chain.setEthBalance(poor.address, 10n ** 18n);
    const pub = createPublicClient({ transport: http(inject('rpcUrl')) });
    const nonce = await pub.getTransactionCount({ address: poor.address });
    const opts = {
      skill: 'csv-cleaner',
      baseUrl: inject('baseUrl'),
      rpcUrl: inject('rpcUrl'),
      account: poor,
      asset: 'USDC' as const,
      outDir: out,
    };
    const short = buy(opts, () => undefined);
    await expect(short).rejects.toBeInstanceOf(BuyError);
    await expect(short).rejects.toThrow(new RegExp(`^${poor.address} holds 0 USDC and csv-cleaner costs 0\\.099: send USDC on Base`));
    expect(await pub.getTransactionCount({ address: poor.address })).toBe(nonce);

    // A port nothing listens on.
    const closed = await freePort();
    await expect(buy({ ...opts, baseUrl: `http://127.0.0.1:${closed}` }, () => undefined)).rejects.toThrow(
      new RegExp(
        `^Cannot reach http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\): start the service with npm start, or give its address with --base-url\\.$`,
      ),
    );

    // An RPC of another chain (a node answering chain id 1), and one that does not answer: nothing is sent.
    const mainnet = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
      });
    });
    await new Promise<void>((r) => mainnet.listen(0, '127.0.0.1', r));
    const mainnetUrl = `http://127.0.0.1:${(mainnet.address() as AddressInfo).port}`;
    const rich = testAccount(65);
    try {
      await expect(buy({ ...opts, account: rich, rpcUrl: mainnetUrl, force: true }, () => undefined)).rejects.toThrow(
        new RegExp(`^The RPC at ${mainnetUrl.replace(/\./g, '\\.')} is chain 1, not Base \\(8453\\): give a Base RPC URL with --rpc-url`),
      );
    } finally {
      mainnet.close();
    }
    await expect(buy({ ...opts, account: rich, rpcUrl: `http://127.0.0.1:${closed}`, force: true }, () => undefined)).rejects.toThrow(
      /^Cannot reach the chain at http:\/\/127\.0\.0\.1:\d+: start it with npm start, or give a Base RPC URL with --rpc-url\.$/,
    );

    const help = await new Promise<{ code: number | null; out: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'local/buy.ts', '--help'],
        { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
        (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout }),
      ),
    );
    expect(help).toEqual({ code: 0, out: `${USAGE}\n` });
  });
});
