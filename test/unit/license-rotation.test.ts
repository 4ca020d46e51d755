/**
 * The license signing key rotates (Secrets Manager's four steps, core/key-rotation.ts) without
 * breaking the licenses already issued: tokens name their key, and the key before the current
 * one still verifies. Fakes of the ports: an in-memory secret with Secrets Manager's labels.
 */
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { joseLicenses } from '../../lambdas/payments/adapters/jose-licenses';
import { RotationRefused, rotateStep } from '../../lambdas/payments/core/key-rotation';
import type { LicenseKeys } from '../../lambdas/payments/ports';
import { fakeSecretVersions } from '../support/fake-secret';

/** The fake secret, and the license keys a function loads from it. */
function fakeSecret(first: string, rotationEnabled = true) {
  const { secret, start, stages } = fakeSecretVersions(first, rotationEnabled);
  const keys = async (): Promise<LicenseKeys> => {
    const current = await secret.value({ stage: 'AWSCURRENT' });
    const previous = await secret.value({ stage: 'AWSPREVIOUS' });
    return { current: Buffer.from(current!), ...(previous ? { previous: Buffer.from(previous) } : {}) };
  };
  return { secret, start, keys, stages };
}

const KEY = (c: string) => c.repeat(64);
const CLAIMS = {
  network: 'base',
  txHash: `0x${'ab'.repeat(32)}`,
  skill: 'csv-cleaner',
  payer: `0x${'11'.repeat(20)}`,
  seal: 'f'.repeat(64),
};

async function rotate(s: ReturnType<typeof fakeSecret>, token: string, key: string) {
  s.start(token);
  for (const step of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const)
    await rotateStep(step, token, s.secret, () => key);
}

describe('rotating the license key', () => {
  it('runs the four steps once each, idempotently, and leaves the old key as AWSPREVIOUS', async () => {
    const s = fakeSecret(KEY('a'));
    s.start('v2');
    expect(await rotateStep('createSecret', 'v2', s.secret, () => KEY('b'))).toBe('done');
    expect(await rotateStep('createSecret', 'v2', s.secret, () => KEY('c'))).toBe('nothing-to-do');
    expect(await rotateStep('setSecret', 'v2', s.secret, () => KEY('c'))).toBe('nothing-to-do');
    expect(await rotateStep('testSecret', 'v2', s.secret, () => KEY('c'))).toBe('done');
    expect(await rotateStep('finishSecret', 'v2', s.secret, () => KEY('c'))).toBe('done');
    expect(await rotateStep('finishSecret', 'v2', s.secret, () => KEY('c'))).toBe('nothing-to-do');
    expect(Object.fromEntries(s.stages)).toEqual({ v1: ['AWSPREVIOUS'], v2: ['AWSCURRENT'] });
    expect(await s.secret.value({ stage: 'AWSCURRENT' })).toBe(KEY('b'));
  });

  it('refuses a secret without rotation, an unknown or not pending version, and a short key', async () => {
    await expect(rotateStep('createSecret', 'v2', fakeSecret(KEY('a'), false).secret, () => KEY('b'))).rejects.toThrow(RotationRefused);
    const s = fakeSecret(KEY('a'));
    await expect(rotateStep('createSecret', 'v9', s.secret, () => KEY('b'))).rejects.toThrow(/not a version/);
    s.start('v2');
    await rotateStep('createSecret', 'v2', s.secret, () => 'short');
    await expect(rotateStep('testSecret', 'v2', s.secret, () => KEY('b'))).rejects.toThrow(/shorter than 32 bytes/);
    expect(await s.secret.value({ stage: 'AWSCURRENT' })).toBe(KEY('a'));
  });

  it('keeps licenses issued before a rotation valid, signs new ones with the new key, and ends the grace at the next rotation', async () => {
    const s = fakeSecret(KEY('a'));
    let clock = 0;
    let loads = 0;
    const licenses = joseLicenses(
      async () => (loads++, s.keys()),
      () => clock,
    );
    const before = await licenses.issue(CLAIMS);

    await rotate(s, 'v2', KEY('b'));
    clock += 61_000;
    const after = await joseLicenses(s.keys).issue(CLAIMS); // an instance started after the rotation
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    // An instance that loaded before the rotation meets a token naming the new key: it fetches the keys again.
    expect(await licenses.verify(after)).toEqual(CLAIMS);
    expect(loads).toBe(2);
    expect(await licenses.verify(before)).toEqual(CLAIMS);
    expect(decodeProtectedHeader(await licenses.issue(CLAIMS)).kid).toBe(decodeProtectedHeader(after).kid);

    await rotate(s, 'v3', KEY('c'));
    clock += 61_000;
    const fresh = await joseLicenses(s.keys).issue(CLAIMS);
    expect(await licenses.verify(fresh)).toEqual(CLAIMS);
    expect(await licenses.verify(after)).toEqual(CLAIMS); // the previous key
    expect(await licenses.verify(before)).toBeUndefined(); // two rotations ago
  });

  it('asks for the keys again at most once a minute for unknown key ids, and refuses tampered tokens', async () => {
    const s = fakeSecret(KEY('a'));
    let loads = 0;
    const clock = 1_000;
    const licenses = joseLicenses(
      async () => (loads++, s.keys()),
      () => clock,
    );
    const token = await licenses.issue(CLAIMS);
    const foreign = await joseLicenses(async () => ({ current: Buffer.from(KEY('z')) })).issue(CLAIMS);
    expect(await licenses.verify(foreign)).toBeUndefined();
    expect(await licenses.verify(foreign)).toBeUndefined();
    expect(loads).toBe(1);
    const [h, p, sig] = token.split('.');
    expect(await licenses.verify(`${h}.${p}.${sig!.slice(0, -2)}AA`)).toBeUndefined();
    expect(await licenses.verify('not-a-token')).toBeUndefined();
  });
});
