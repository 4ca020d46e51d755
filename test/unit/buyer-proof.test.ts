import { describe, expect, it } from 'vitest';
import { NETWORKS } from '../../lambdas/contract/networks';
import { signInWithXFields } from '../../lambdas/contract/sign-in-with-x';
import { proofProblem } from '../../lambdas/payments/core/buyer-proof';

const NOW = new Date('2026-11-27T00:00:00Z');
const BASE_URL = 'https://shop.example';
const TX = `0x${'cd'.repeat(32)}`;
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SIGNATURE = `0x${'11'.repeat(65)}`;

const signed = (chain?: `eip155:${number}`) => ({
  ...signInWithXFields({
    baseUrl: BASE_URL,
    skill: 'esp-outcome-judge',
    address: ADDRESS,
    txHash: TX,
    issuedAt: NOW,
    nonce: 'abcdef123456',
    chain,
  }),
  signature: SIGNATURE,
});
const expected = (network: (typeof NETWORKS)[keyof typeof NETWORKS]) => ({
  domain: 'shop.example',
  uri: `${BASE_URL}/api/pay?skill=esp-outcome-judge`,
  txHash: TX,
  network,
  now: NOW,
});

describe('a buyer proof is for the chain the service settles on', () => {
  it('Base takes a Base signature and refuses a Base Sepolia one', () => {
    expect(proofProblem(signed(), expected(NETWORKS.base))).toBeUndefined();
    expect(proofProblem(signed('eip155:84532'), expected(NETWORKS.base))).toMatch(/resources must include eip155:8453:tx:/);
  });

  it('a staging stack on Base Sepolia takes a Base Sepolia signature and refuses a Base one', () => {
    expect(proofProblem(signed('eip155:84532'), expected(NETWORKS['base-sepolia']))).toBeUndefined();
    expect(proofProblem({ ...signed(), resources: [`eip155:84532:tx:${TX}`] }, expected(NETWORKS['base-sepolia']))).toBe(
      'chainId must be eip155:84532',
    );
  });
});
