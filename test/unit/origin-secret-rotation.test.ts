/**
 * The origin secret rotates (Secrets Manager's four steps; platform/origin-secret-rotation.ts)
 * without refusing a request that came through CloudFront at any moment: fakes of the ports (an
 * in-memory secret with Secrets Manager's labels, a distribution whose origins carry headers),
 * and the functions' origin check reading the same fake secret. No AWS call.
 */
import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_ORIGIN_SECRET_STAGES,
  ORIGIN_SECRET_MAX_AGE_SECONDS,
  ORIGIN_SECRET_REFRESH_SECONDS,
  ORIGIN_VERIFY_HEADER,
  VIEWER_ADDRESS_HEADER,
} from '../../lambdas/contract/edge-identity';
import {
  originHeaders,
  originSecretTarget,
  type OriginHeaderTarget,
  type OriginsConfig,
} from '../../lambdas/platform/origin-secret-rotation';
import { originGuard } from '../../lambdas/platform/origin-verify';
import { RotationRefused, rotateSecretStep } from '../../lambdas/platform/secret-rotation';
import { fakeSecretVersions } from '../support/fake-secret';

/** The fake secret, and what a function reads: the values of the accepted labels. */
function fakeSecret(first: string) {
  const { secret, start, stages } = fakeSecretVersions(first);
  /** What a function reads: the values of the accepted labels. */
  const accepted = async () =>
    (await Promise.all(ACCEPTED_ORIGIN_SECRET_STAGES.map((stage) => secret.value({ stage })))).filter((v): v is string => v !== undefined);
  return { secret, start, stages, accepted };
}

/** A distribution configuration: the S3 origin without headers, the API origin with the secret (as the stack makes it). */
function fakeDistribution(sent: string) {
  const config: OriginsConfig = {
    Origins: {
      Items: [
        {},
        {
          CustomHeaders: {
            Items: [
              { HeaderName: 'X-Something-Else', HeaderValue: 'kept' },
              { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: sent },
            ],
          },
        },
      ],
    },
  };
  const log: string[] = [];
  const cdn: OriginHeaderTarget = {
    async read() {
      return originHeaders(config).map((h) => h.HeaderValue ?? '');
    },
    async write(value) {
      log.push(`write ${value}`);
      for (const h of originHeaders(config)) h.HeaderValue = value;
    },
  };
  const sending = () => originHeaders(config)[0]!.HeaderValue;
  return { config, cdn, log, sending };
}

const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;

describe('rotating the origin secret', () => {
  it('runs the four steps idempotently: a new value, waited for, then sent by the distribution, then current', async () => {
    const s = fakeSecret('first-value');
    const d = fakeDistribution('first-value');
    const pauses: number[] = [];
    const target = originSecretTarget(d.cdn, async (ms) => {
      pauses.push(ms);
      d.log.push(`pause ${ms}`);
    });
    s.start('v2');
    expect(await rotateSecretStep('createSecret', 'v2', s.secret, target)).toBe('done');
    expect(await rotateSecretStep('createSecret', 'v2', s.secret, target)).toBe('nothing-to-do');
    const pending = (await s.secret.value({ versionId: 'v2' }))!;
    expect(pending).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Before setSecret, a test finds the distribution still sending the old value.
    await expect(rotateSecretStep('testSecret', 'v2', s.secret, target)).rejects.toThrow(RotationRefused);
    expect(await rotateSecretStep('setSecret', 'v2', s.secret, target)).toBe('done');
    // The wait comes before the distribution sends the new value, and lasts the functions' re-read period.
    expect(d.log).toEqual([`pause ${ORIGIN_SECRET_REFRESH_SECONDS * 1000}`, `write ${pending}`]);
    expect(d.sending()).toBe(pending);
    expect(originHeaders(d.config, 'x-something-else')[0]!.HeaderValue).toBe('kept');
    expect(await rotateSecretStep('setSecret', 'v2', s.secret, target)).toBe('nothing-to-do');
    expect(pauses).toHaveLength(1);
    expect(await rotateSecretStep('testSecret', 'v2', s.secret, target)).toBe('done');
    expect(await rotateSecretStep('finishSecret', 'v2', s.secret, target)).toBe('done');
    expect(await rotateSecretStep('finishSecret', 'v2', s.secret, target)).toBe('nothing-to-do');
    expect(Object.fromEntries(s.stages)).toEqual({ v1: ['AWSPREVIOUS'], v2: ['AWSCURRENT'] });
    expect(await s.secret.value({ stage: 'AWSCURRENT' })).toBe(pending);
  });

  it('refuses a distribution whose origins carry no secret header, and a setSecret before createSecret', async () => {
    const s = fakeSecret('first-value');
    const bare: OriginHeaderTarget = { read: async () => [], write: async () => undefined };
    const target = originSecretTarget(bare, async () => undefined);
    s.start('v2');
    await expect(rotateSecretStep('setSecret', 'v2', s.secret, target)).rejects.toThrow(/createSecret did not run/);
    await rotateSecretStep('createSecret', 'v2', s.secret, target);
    await expect(rotateSecretStep('setSecret', 'v2', s.secret, target)).rejects.toThrow(/no origin of the distribution carries/);
    await expect(rotateSecretStep('testSecret', 'v2', s.secret, target)).rejects.toThrow(RotationRefused);
    expect(await s.secret.value({ stage: 'AWSCURRENT' })).toBe('first-value');
  });

  it('never refuses a request that came through CloudFront, whichever value an edge sends during and after the rotation', async () => {
    const s = fakeSecret('first-value');
    const d = fakeDistribution('first-value');
    let clock = 1_000_000;
    // A warm function that read the secret just before the rotation began.
    const guard = originGuard({ secrets: s.accepted, now: () => clock });
    const through = async (secret: string) =>
      await guard.callerOf({ [ORIGIN_VERIFY_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: '203.0.113.5' });
    expect(await through('first-value')).toBe('203.0.113.5');
    // The rotation's wait is real time passing for the functions.
    const target = originSecretTarget(d.cdn, async (ms) => void (clock += ms));
    s.start('v2');
    for (const step of STEPS) {
      await rotateSecretStep(step, 'v2', s.secret, target);
      // Some edges send the new value as soon as the distribution has it, others the old one for minutes.
      expect(await through('first-value')).toBe('203.0.113.5');
      if (step !== 'createSecret') expect(await through(d.sending()!)).toBe('203.0.113.5');
    }
    // The next rotation retires the first value: refused once the values a warm function knows age out.
    s.start('v3');
    for (const step of STEPS) await rotateSecretStep(step, 'v3', s.secret, target);
    clock += ORIGIN_SECRET_MAX_AGE_SECONDS * 1000;
    await expect(through('first-value')).rejects.toMatchObject({ code: 'ORIGIN_REQUIRED' });
    expect(await through(d.sending()!)).toBe('203.0.113.5');
  });
});
