import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { TEST_MNEMONIC, testAccount, testAccounts } from '../../local/anvil';

const dir = mkdtempSync(join(tmpdir(), 'test-accounts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local test accounts', () => {
  it('are the accounts anvil funds: the same keys and signatures as viem derives from the mnemonic', async () => {
    for (const index of [0, 1, 9, 11, 12]) {
      const want = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
      expect(testAccount(index).address, String(index)).toBe(want.address);
      expect(testAccount(index).privateKey, String(index)).toBe(toHex(want.getHdKey().privateKey!));
      expect(testAccount(index).publicKey, String(index)).toBe(want.publicKey);
    }
    const want = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 2 });
    expect(await testAccount(2).signMessage({ message: 'hello' })).toBe(await want.signMessage({ message: 'hello' }));
    const tx = { chainId: 8453, to: want.address, value: 1n, nonce: 0, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n } as const;
    expect(await testAccount(2).signTransaction(tx)).toBe(await want.signTransaction(tx));
    // anvil's first account for this mnemonic, as every Ethereum dev tool prints it.
    expect(testAccount(0).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(testAccount(3)).toBe(testAccount(3));
  });

  it('are derived once per machine: a new process reads the kept key and derives nothing', () => {
    const file = join(dir, 'keys.json');
    const first = testAccounts(file)(4);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { address: string; privateKey: string }>;
    expect(Object.values(kept)).toEqual([{ address: first.address, privateKey: first.privateKey }]);

    // Account 5's key kept under index 4's path: what comes back is what was kept, not a derivation.
    const five = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 5 });
    const path = Object.keys(kept)[0]!;
    writeFileSync(file, JSON.stringify({ [path]: { address: five.address, privateKey: toHex(five.getHdKey().privateKey!) } }));
    expect(testAccounts(file)(4).address).toBe(five.address);
  });

  it('refuse to sign from a damaged cache: a key that is not the kept address', async () => {
    const file = join(dir, 'damaged.json');
    testAccounts(file)(6);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { address: string; privateKey: string }>;
    const [path, entry] = Object.entries(kept)[0]!;
    const other = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 7 });
    writeFileSync(file, JSON.stringify({ [path]: { ...entry, privateKey: toHex(other.getHdKey().privateKey!) } }));
    await expect(testAccounts(file)(6).signMessage({ message: 'x' })).rejects.toThrow(/damaged \(account 6\)/);
  });

  it('are derived anyway when the cache cannot be read', () => {
    const file = join(dir, 'garbage.json');
    writeFileSync(file, '{not json');
    expect(testAccounts(file)(1).address).toBe(mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 1 }).address);
  });
});
