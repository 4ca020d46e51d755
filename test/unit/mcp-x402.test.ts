/** What an MCP client reads when an unlock is refused: the tool's arguments and `_meta`, never an HTTP header. */
import { describe, expect, it } from 'vitest';
import { refusalResult } from '../../lambdas/agents/mcp-x402';
import { PAYMENT_ERRORS } from '../../lambdas/payments';
import { PLATFORM_ERRORS } from '../../lambdas/platform/errors';

const HEADERS = /X-PAYMENT|X-LICENSE|SIGN-IN-WITH-X|PAYMENT-SIGNATURE|PAYMENT-REQUIRED/;

describe('an unlock refusal over MCP', () => {
  it.each(['BUYER_PROOF_REQUIRED', 'PAYMENT_REQUIRED'] as const)(
    '%s keeps its code, message and details, with a tip naming no header',
    (code) => {
      const error = PAYMENT_ERRORS[code]({ message: 'why', details: { reason: 'x' } });
      expect(error.tip).toMatch(HEADERS);
      const result = refusalResult(error)!;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ ok: false, error_code: code, message: 'why', details: { reason: 'x' } });
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
      expect((result.structuredContent as { tip: string }).tip).not.toMatch(HEADERS);
    },
  );

  it('leaves every other failure as it is', () => {
    expect(refusalResult(PLATFORM_ERRORS.INVALID_REQUEST({ message: 'bad' }))).toBeUndefined();
    expect(refusalResult(new Error('fault'))).toBeUndefined();
  });
});
