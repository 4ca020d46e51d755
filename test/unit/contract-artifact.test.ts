import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileAuthCaptureEscrow,
  compileErc3009PaymentCollector,
  compileEscrowOperatorGuard,
  compileIdentityRegistry,
  compileMulticall,
  compileOperatorRefundCollector,
  compileTestSmartWallet,
  compileTestPriceFeed,
  compileTestStablecoin,
  compileTestWalletFactory,
  compileTokenStore,
  type CompiledContract,
} from '../../local/contracts/compile';

const cases: [name: string, artifact: string, compile: () => CompiledContract][] = [
  ['test stablecoin', 'local/contracts/test-stablecoin.artifact.json', compileTestStablecoin],
  ['multicall', 'local/contracts/multicall.artifact.json', compileMulticall],
  ['test smart wallet', 'local/contracts/test-smart-wallet.artifact.json', compileTestSmartWallet],
  ['test wallet factory', 'local/contracts/test-wallet-factory.artifact.json', compileTestWalletFactory],
  ['identity registry', 'local/contracts/identity-registry.artifact.json', compileIdentityRegistry],
  ['test price feed', 'local/contracts/test-price-feed.artifact.json', compileTestPriceFeed],
  // base/commerce-payments, vendored for x402's auth-capture escrow (issue 53).
  ['auth-capture escrow', 'local/contracts/auth-capture-escrow.artifact.json', compileAuthCaptureEscrow],
  ['token store', 'local/contracts/token-store.artifact.json', compileTokenStore],
  ['ERC-3009 payment collector', 'local/contracts/erc3009-payment-collector.artifact.json', compileErc3009PaymentCollector],
  ['operator refund collector', 'local/contracts/operator-refund-collector.artifact.json', compileOperatorRefundCollector],
  // The escrow operator's account delegates to it (EIP-7702), so a front-run authorize reverts cheaply (I2).
  ['escrow operator guard', 'local/contracts/escrow-operator-guard.artifact.json', compileEscrowOperatorGuard],
];

describe.each(cases)('%s artifact', (_name, artifact, compile) => {
  it('is what solc-js compiles from the committed source', () => {
    const committed = JSON.parse(readFileSync(artifact, 'utf8'));
    const fresh = compile();
    expect(committed.bytecode).toBe(fresh.bytecode);
    expect(committed.abi).toEqual(fresh.abi);
  });
});
