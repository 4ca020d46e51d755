import { describe, expect, it } from 'vitest';
import { mnemonicToAccount } from 'viem/accounts';
import { TEST_MNEMONIC, testAccount } from '../../local/anvil';

describe('local test accounts', () => {
  it('are the accounts anvil funds: the same keys as viem derives from the mnemonic, each derived once', () => {
    for (const index of [0, 1, 9, 11, 12]) {
      const want = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
      expect(testAccount(index).address, String(index)).toBe(want.address);
      expect(testAccount(index).getHdKey().privateKey, String(index)).toEqual(want.getHdKey().privateKey);
    }
    // anvil's first account for this mnemonic, as every Ethereum dev tool prints it.
    expect(testAccount(0).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(testAccount(3)).toBe(testAccount(3));
  });
});
