import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileIdentityRegistry,
  compileMulticall,
  compileTestSmartWallet,
  compileTestPriceFeed,
  compileTestStablecoin,
  compileTestWalletFactory,
  type CompiledContract,
} from '../../local/contracts/compile';

const cases: [name: string, artifact: string, compile: () => CompiledContract][] = [
  ['test stablecoin', 'local/contracts/test-stablecoin.artifact.json', compileTestStablecoin],
  ['multicall', 'local/contracts/multicall.artifact.json', compileMulticall],
  ['test smart wallet', 'local/contracts/test-smart-wallet.artifact.json', compileTestSmartWallet],
  ['test wallet factory', 'local/contracts/test-wallet-factory.artifact.json', compileTestWalletFactory],
  ['identity registry', 'local/contracts/identity-registry.artifact.json', compileIdentityRegistry],
  ['test price feed', 'local/contracts/test-price-feed.artifact.json', compileTestPriceFeed],
];

describe.each(cases)('%s artifact', (_name, artifact, compile) => {
  it('is what solc-js compiles from the committed source', () => {
    const committed = JSON.parse(readFileSync(artifact, 'utf8'));
    const fresh = compile();
    expect(committed.bytecode).toBe(fresh.bytecode);
    expect(committed.abi).toEqual(fresh.abi);
  });
});
