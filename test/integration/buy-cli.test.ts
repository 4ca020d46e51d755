import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { testAccount } from '../../local/anvil';
import { buy } from '../../local/buy';

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
});
