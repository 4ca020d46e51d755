import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileTestStablecoin } from '../../local/contracts/compile';

describe('test stablecoin artifact', () => {
  it('is what solc-js compiles from the committed source', () => {
    const committed = JSON.parse(readFileSync('local/contracts/test-stablecoin.artifact.json', 'utf8'));
    const fresh = compileTestStablecoin();
    expect(committed.bytecode).toBe(fresh.bytecode);
    expect(committed.abi).toEqual(fresh.abi);
  });
});
