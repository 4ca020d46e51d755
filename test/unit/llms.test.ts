import { describe, expect, it } from 'vitest';
import { LLMS_MCP_TOOLS, LLMS_SECTIONS, X402_FETCH_V1_DEFAULT_CAP, renderLlmsTxt } from '../../catalog/llms';
import { loadCatalogFiles } from '../../lambdas/catalog/adapters/catalog-files';

describe('llms.txt', () => {
  const catalog = loadCatalogFiles();
  const text = renderLlmsTxt(catalog.entries, catalog.pricing.canary, catalog.pricing.x402Resources);
  const section = (heading: string) => {
    const start = text.indexOf(heading);
    const next = text.indexOf('\n## ', start + heading.length);
    return text.slice(start, next === -1 ? undefined : next);
  };

  it('teaches the stock x402 client first, then getting a pack again, then the txHash flow, then MCP and A2A', () => {
    const at = Object.values(LLMS_SECTIONS).map((h) => text.indexOf(h));
    expect(at.every((i) => i > 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // No other way to buy is taught before the easiest one.
    expect(text.indexOf('X-PAYMENT')).toBeGreaterThan(at[2]!);
  });

  it('the easiest flow is the README snippet: @x402/fetch with registerExactEvmScheme, and no ETH needed', () => {
    const easiest = section(LLMS_SECTIONS.easiest);
    for (const s of [
      "from '@x402/fetch'",
      "from '@x402/evm/exact/client'",
      'registerExactEvmScheme(client, { signer: account })',
      'wrapFetchWithPayment',
    ]) {
      expect(easiest).toContain(s);
    }
    expect(easiest).toMatch(/no ETH/);
    expect(easiest).toContain(`/api/pay?skill=${catalog.pricing.canary}`);
  });

  it("the easiest flow names the x402 v1 clients and every stock client's default spend cap, the option that raises it, and how many skills are above it", () => {
    const easiest = section(LLMS_SECTIONS.easiest);
    expect(easiest).toContain('wrapFetchWithPayment(fetch, account)');
    expect(easiest).toContain('withPaymentInterceptor(axios.create({ baseURL: SITE }), account)');
    const above = (cap: bigint) => catalog.entries.filter((e) => BigInt(e.x402.amount) > cap).length;
    expect(easiest).toContain(`maxValue, default ${X402_FETCH_V1_DEFAULT_CAP} atomic`);
    expect(easiest).toContain(`${above(100_000n)} of the ${catalog.entries.length} skills cost more`);
    expect(easiest).toMatch(/wrapFetchWithPayment\(fetch, account, [1-9][0-9]*n\)/);
    expect(easiest).toContain('Payment amount exceeds maximum allowed');
    expect(easiest).toContain(`${above(1_000_000n)} skills cost more`);
    expect(easiest).toContain('maxAmountPerPayment');
    expect(easiest).toMatch(/x402-axios 0\.7\.2 has no cap/);
  });

  it('getting a pack again names the license, the wallet sign-in, the purchases list, and that an owner is not charged', () => {
    const again = section(LLMS_SECTIONS.again);
    for (const s of ['X-LICENSE', 'SIGN-IN-WITH-X', 'GET /api/purchases', 'Authorization: Bearer', '/recover/', '/purchases/'])
      expect(again).toContain(s);
    expect(again).toMatch(/owner paying again is not charged/);
  });

  it('the txHash flow posts X-PAYMENT {txHash, skill}, and only it says gas is needed', () => {
    const tx = section(LLMS_SECTIONS.txHash);
    expect(tx).toContain('POST /api/pay with header X-PAYMENT: {"txHash":"0x…","skill":"<id>"}');
    expect(tx).toMatch(/ETH on Base for gas/);
    expect(text.replace(tx, '')).not.toMatch(/ETH (on Base )?for gas/);
  });

  it('names MCP with its tools and A2A with its card', () => {
    const agents = section(LLMS_SECTIONS.agents);
    for (const t of LLMS_MCP_TOOLS) expect(agents).toContain(`\`${t}\``);
    for (const s of ['/api/mcp', '/api/a2a', '/.well-known/agent-card.json', 'message/send']) expect(agents).toContain(s);
  });

  it('makes no claim that USDC alone cannot pay: the stock client pays with USDC alone', () => {
    expect(text).not.toMatch(/USDC alone cannot/i);
    expect(text).not.toMatch(/keep a little ETH/i);
  });
});
