import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { buy } from '../../local/buy';
import { chainTools } from '../support/chain';

describe('npm run buy', () => {
  it('runs the purchase sequence for the canary with anvil account 1, saves the files and checks the seal', async () => {
    const out = mkdtempSync(join(tmpdir(), 'packs-'));
    const lines: string[] = [];
    const result = await buy(
      {
        skill: 'agent-x402-first-buy',
        baseUrl: inject('baseUrl'),
        rpcUrl: inject('rpcUrl'),
        account: testAccount(1),
        asset: 'USDC',
        outDir: out,
      },
      (l) => lines.push(l),
    );
    expect(lines.filter((l) => /^\[\d\/8\]/.test(l))).toHaveLength(8);
    expect(result.files).toContain('SKILL.md');
    expect(readFileSync(join(out, 'agent-x402-first-buy', 'SKILL.md'), 'utf8')).toMatch(/^# /);
    const receipt = JSON.parse(readFileSync(join(out, 'agent-x402-first-buy.receipt.json'), 'utf8'));
    expect(receipt.txHash).toBe(result.txHash);
    expect(receipt.license.token).toEqual(expect.any(String));
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
    expect((result.proofRow as { txHash: string }).txHash).toBe(result.txHash.toLowerCase());
  });
});
