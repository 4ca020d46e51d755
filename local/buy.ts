/**
 * The buyer CLI: runs the spec's purchase sequence against a marketplace, one progress line
 * per step: shop → catalog → outline → 402 challenge → USDC transfer → POST /api/pay with
 * the spec's retries → verify the files against the version's signed provenance, then save them
 * under ./packs/<skill>/ and check the seal → proof. Beside the files it keeps the license
 * (`<skill>.receipt.json`) and the sale's signed receipt (`<skill>.receipt.jws`, for
 * `npm run verify-receipt`).
 *
 * Verify before writing (issue 52): the files delivered are checked with `verifyPack`
 * (local/verify-pack.ts) against every attestation GET /api/packs/provenance answers for the version
 * delivered, with the key GET /.well-known/jwks.json publishes. When anything does not match (or the
 * service publishes no provenance) it writes nothing at all, not even the license or receipt, and says
 * so in one sentence naming the file: what was paid for stays the wallet's, and running it again gets
 * the pack as its owner without paying (the owner's sign-in below).
 *
 *   npm run buy -- <skill> [--base-url URL] [--rpc-url URL] [--key 0x…] [--asset USDC|USDbC] [--out DIR] [--no-sign] [--x402]
 *
 * Defaults: the running `npm start`'s API and chain (its endpoints file, local/endpoints.ts; else
 * PORT/ANVIL_PORT, else http://127.0.0.1:8787 and anvil on 8545) and anvil account 1. With
 * `--x402` it pays the standard x402 v2 way instead of steps 4 to 6: a stock client
 * (@x402/fetch, exact scheme) signs an EIP-3009 authorization for the challenge in
 * PAYMENT-REQUIRED and the service submits the transfer (the wallet needs USDC, no ETH).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonWebKey } from 'node:crypto';
import { createPublicClient, createWalletClient, erc20Abi, http, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { CHAIN_ID, formatAtomic } from '../lambdas/contract/chain';
import { packFiles, packSeal } from '../lambdas/contract/pack-seal';
import { testAccount } from './anvil';
import { toolEndpoints } from './endpoints';
import { localChain } from './local-chain';
import { signInWithXHeader } from './sign-in-with-x';
import { verifyPack } from './verify-pack';

export interface BuyOptions {
  skill: string;
  baseUrl: string;
  rpcUrl: string;
  account: LocalAccount;
  asset: 'USDC' | 'USDbC';
  outDir: string;
  /** Backoff between unlock attempts, in seconds (the spec's 2, 4, 8, up to ~30 s). */
  retryDelays?: readonly number[];
  /**
   * Sign each claim with the paying wallet (SIGN-IN-WITH-X), so nobody who merely saw the
   * transfer can claim it first (default true; `--no-sign` turns it off for spec-only servers).
   */
  sign?: boolean;
  /** Pay as a stock x402 v2 client does (a signed authorization the service settles), not by transfer. */
  x402?: boolean;
  /** Buy even when the wallet already has the skill (by default an owner signs in and pays nothing). */
  force?: boolean;
}

export interface BuyResult {
  /** The transfer that paid: this run's, or the owner's earlier one; undefined when a subscription or meter draw grants the skill. */
  txHash: Hex | undefined;
  /** True when the wallet already had the skill and nothing was paid. */
  owned: boolean;
  files: string[];
  seal: string;
  proofRow: unknown;
  attempts: number;
}

type Json = Record<string, unknown>;

/** A failure a person reads: one sentence that says what to do, with no stack or library dump. */
export class BuyError extends Error {}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: Json; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new BuyError(
      `Cannot reach ${new URL(url).origin} (${cause?.code ?? cause?.message ?? (e as Error).message}): start the service with npm start, or give its address with --base-url.`,
    );
  }
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  // The spec: an HTML page under /api/* is a 404, never an unlock.
  if (!type.includes('json'))
    return { status: res.status === 200 ? 404 : res.status, body: { ok: false, error: 'not_json' }, headers: res.headers };
  return { status: res.status, body: JSON.parse(text) as Json, headers: res.headers };
}

/** Reads a challenge field from the top level or from accepts[0], as the spec requires clients to. */
/** Walks nested JSON objects by key; anything missing or not an object on the way is undefined. */
function at(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

function field(challenge: Json, ...names: string[]): unknown {
  for (const n of names) if (challenge[n] !== undefined) return challenge[n];
  const first = Array.isArray(challenge['accepts']) ? challenge['accepts'][0] : undefined;
  for (const n of names) if (first?.[n] !== undefined) return first[n];
  return undefined;
}

export async function buy(opts: BuyOptions, log: (line: string) => void = console.log): Promise<BuyResult> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const step = (n: number, text: string): void => log(`[${n}/8] ${text}`);

  const shop = await getJson(`${base}/api/shop`);
  const shelves = at(shop.body, 'shelves');
  step(
    1,
    shop.status === 200
      ? `shop: read (${shelves && typeof shelves === 'object' ? Object.keys(shelves).length : 0} shelves); buying ${opts.skill}`
      : `shop: not served here (${shop.status}), continuing`,
  );

  const words = opts.skill.replace(/-/g, ' ');
  const catalog = await getJson(`${base}/api/catalog?q=${encodeURIComponent(words)}&limit=10`);
  const found = (catalog.body['results'] as Json[] | undefined)?.find((r) => r['id'] === opts.skill);
  if (!found) throw new Error(`skill ${opts.skill} not found in the catalog`);
  step(2, `catalog: ${found['name']} at ${found['price_label']}`);

  const outline = await getJson(`${base}/skills/${opts.skill}/outline.json`);
  if (outline.status !== 200) throw new Error(`outline: HTTP ${outline.status}`);
  step(
    3,
    `outline: ${(at(outline.body, 'sections') as unknown[] | undefined)?.length ?? 0} sections, pack seal ${String(at(outline.body, 'pack', 'seal')).slice(0, 12)}…`,
  );

  if (!opts.force) {
    const owned = await packForOwner(opts, base, step);
    if (owned) return finish(opts, base, step, owned);
  }
  if (opts.x402) return finish(opts, base, step, await payWithX402(opts, base, step));

  const challengeRes = await getJson(`${base}/api/pay?skill=${encodeURIComponent(opts.skill)}`);
  if (challengeRes.status !== 402)
    throw new Error(`expected 402 from GET /api/pay, got ${challengeRes.status}: ${challengeRes.body['message']}`);
  const ch = challengeRes.body;
  const accepts = (ch['accepts'] as Json[] | undefined) ?? [ch];
  // Each accepts[] entry names its token by `symbol` (its `asset` is the contract, as x402 v1 has it).
  const option = accepts.find((a) => (a['symbol'] ?? a['asset']) === opts.asset) ?? (opts.asset === 'USDC' ? ch : undefined);
  if (!option) throw new Error(`the challenge does not accept ${opts.asset}`);
  const amount = BigInt(String(field(option, 'maxAmountRequired', 'amount')));
  const payTo = String(field(option, 'payTo')) as Hex;
  const contract = String(field(option, 'assetContract')) as Hex;
  const banned = String(at(field(ch, 'extra'), 'legacyTreasuryBanned') ?? '');
  if (![String(field(option, 'network')), String(field(option, 'network_caip2'))].some((n) => n === 'base' || n === `eip155:${CHAIN_ID}`))
    throw new BuyError(
      `The shop at ${opts.baseUrl} asks for payment on another network than Base (${CHAIN_ID}): nothing was sent; check --base-url.`,
    );
  if (banned && payTo.toLowerCase() === banned.toLowerCase())
    throw new Error('challenge payTo is the banned legacy treasury; refusing to pay');
  step(4, `challenge: pay ${amount} atomic ${opts.asset} (${contract}) to ${payTo}`);

  const chain = localChain(opts.rpcUrl);
  const pub = createPublicClient({ chain, transport: http(opts.rpcUrl) });
  let chainId: number;
  try {
    chainId = await pub.getChainId();
  } catch {
    throw new BuyError(`Cannot reach the chain at ${opts.rpcUrl}: start it with npm start, or give a Base RPC URL with --rpc-url.`);
  }
  if (chainId !== CHAIN_ID)
    throw new BuyError(
      `The RPC at ${opts.rpcUrl} is chain ${chainId}, not Base (${CHAIN_ID}): give a Base RPC URL with --rpc-url, so the USDC goes where the shop looks for it.`,
    );
  // Checked first, so a wallet short of USDC reads one sentence rather than the token's revert.
  const held = await pub.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [opts.account.address] });
  if (held < amount)
    throw new BuyError(
      `${opts.account.address} holds ${formatAtomic(held)} ${opts.asset} and ${opts.skill} costs ${formatAtomic(amount)}: send ${opts.asset} on Base to that address, or choose another wallet with --key.`,
    );
  const wallet = createWalletClient({ account: opts.account, chain, transport: http(opts.rpcUrl) });
  const txHash = await wallet.writeContract({ address: contract, abi: erc20Abi, functionName: 'transfer', args: [payTo, amount] });
  const receipt = await pub.waitForTransactionReceipt({ hash: txHash, confirmations: 1, pollingInterval: 250 });
  step(5, `transfer: ${txHash} in block ${receipt.blockNumber} (${receipt.status})`);

  const delays = opts.retryDelays ?? [2, 4, 8, 16];
  let attempts = 0;
  let unlock: Awaited<ReturnType<typeof getJson>> | undefined;
  for (;;) {
    attempts++;
    // A fresh signature per attempt: the service accepts each nonce once.
    const signature =
      opts.sign === false
        ? {}
        : { 'sign-in-with-x': await signInWithXHeader({ account: opts.account, baseUrl: base, skill: opts.skill, txHash }) };
    unlock = await getJson(`${base}/api/pay`, {
      method: 'POST',
      headers: { 'x-payment': JSON.stringify({ txHash, skill: opts.skill }), ...signature },
    });
    const retryable = (unlock.status === 402 && unlock.body['retry'] === true) || (unlock.status === 503 && unlock.body['retry'] === true);
    if (unlock.status === 200 || !retryable || attempts > delays.length) break;
    const wait = delays[attempts - 1]!;
    log(`      ${unlock.body['error_code']}: ${unlock.body['message']} (retrying in ${wait} s)`);
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
  if (unlock.status !== 200 || unlock.body['ok'] !== true)
    throw new Error(`unlock failed: HTTP ${unlock.status} ${unlock.body['error_code']}: ${unlock.body['message']}`);
  step(
    6,
    `unlock: ${Object.keys(at(unlock.body, 'sealed_pack', 'files') as Record<string, string>).length} files after ${attempts} attempt(s)`,
  );
  return finish(opts, base, step, { txHash, body: unlock.body, attempts });
}

/** Steps 4 to 6 the standard x402 v2 way: the stock client reads the 402, signs, retries; the service settles. */
async function payWithX402(
  opts: BuyOptions,
  base: string,
  step: (n: number, text: string) => void,
): Promise<{ txHash: Hex; body: Json; attempts: number }> {
  if (opts.asset !== 'USDC') throw new Error("--x402 pays in USDC: a stock client's asset table has no USDbC on Base");
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: opts.account });
  client.onAfterPaymentCreation(async ({ paymentPayload }) => {
    const a = paymentPayload.payload['authorization'] as { value: string; to: string } | undefined;
    step(4, `challenge: signed an EIP-3009 authorization of ${a?.value} atomic USDC to ${a?.to} (PAYMENT-SIGNATURE)`);
  });
  const res = await wrapFetchWithPayment(fetch, client)(`${base}/api/pay?skill=${encodeURIComponent(opts.skill)}`);
  const body = (await res.json()) as Json;
  const header = res.headers.get('payment-response');
  const settlement = header ? decodePaymentResponseHeader(header) : undefined;
  if (res.status !== 200 || body['ok'] !== true || !settlement?.success)
    throw new Error(`x402 payment failed: HTTP ${res.status} ${body['error_code']}: ${body['message']}`);
  const txHash = settlement.transaction as Hex;
  step(5, `settled by the service: ${txHash} (PAYMENT-RESPONSE, payer ${settlement.payer})`);
  step(6, `unlock: ${Object.keys(at(body, 'sealed_pack', 'files') as Record<string, string>).length} files`);
  return { txHash, body, attempts: 1 };
}

/**
 * A wallet that already has the skill (GET /api/access) gets the pack by signing in, and pays
 * nothing: steps 4 to 6 say so. Undefined when it has no access (or only a meter that would charge).
 */
async function packForOwner(
  opts: BuyOptions,
  base: string,
  step: (n: number, text: string) => void,
): Promise<{ txHash: Hex | undefined; body: Json; attempts: number; owned: true } | undefined> {
  const access = await getJson(`${base}/api/access?wallet=${opts.account.address}&skill=${encodeURIComponent(opts.skill)}`);
  if (access.status !== 200 || access.body['granted'] !== true || access.body['via'] === 'meter') return undefined;
  const how =
    access.body['via'] === 'subscription'
      ? `your subscription (${String(access.body['plan'])}, until ${String(access.body['until'])})`
      : access.body['source'] === 'transfer'
        ? `your purchase of ${String(access.body['since'])} (${String(access.body['txHash'])})`
        : 'an earlier meter draw';
  step(4, `access: ${opts.account.address} already has ${opts.skill} by ${how}; nothing to pay (--force buys it again)`);
  const header = await signInWithXHeader({ account: opts.account, baseUrl: base, skill: opts.skill });
  const res = await getJson(`${base}/api/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sign-in-with-x': header },
    body: JSON.stringify({ skill: opts.skill }),
  });
  if (res.status !== 200) throw new Error(`signing in for ${opts.skill} answered ${res.status}: ${String(res.body['message'])}`);
  step(5, 'signed in with the wallet (SIGN-IN-WITH-X): no transfer, no settlement');
  step(6, `unlock: ${Object.keys(at(res.body, 'sealed_pack', 'files') as Record<string, string>).length} files`);
  const txHash = access.body['source'] === 'transfer' ? (String(access.body['txHash']) as Hex) : undefined;
  return { txHash, body: res.body, attempts: 1, owned: true };
}

/** What `buy` keeps of a sale beside its files (`<skill>.receipt.json`); its signed receipt is `<skill>.receipt.jws`. */
interface KeptSale {
  skill: string;
  txHash: Hex | undefined;
  license: unknown;
  payment: unknown;
}

const readIfThere = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

/**
 * Keeps the sale's license and signed receipt (a compact JWS, what `npm run verify-receipt` reads)
 * beside the pack, and never loses them: an owner's download again answers the sale's receipt (signed
 * anew) but no license, so the same sale's earlier files are kept and only completed; a subscription's
 * access (no sale of its own) changes nothing; another sale (`--force`) moves the earlier sale's
 * files to `<skill>.<its tx>.receipt.{json,jws}` first.
 */
function keepReceipt(outDir: string, skill: string, txHash: Hex | undefined, body: Json): void {
  const record = join(outDir, `${skill}.receipt.json`);
  const jws = join(outDir, `${skill}.receipt.jws`);
  const earlierText = readIfThere(record);
  const earlier = earlierText === undefined ? undefined : (JSON.parse(earlierText) as Partial<KeptSale>);
  if (txHash === undefined && earlier !== undefined) return;
  const sameSale = earlier?.txHash !== undefined && txHash !== undefined && earlier.txHash.toLowerCase() === txHash.toLowerCase();
  if (earlier?.txHash !== undefined && !sameSale) {
    renameSync(record, join(outDir, `${skill}.${earlier.txHash}.receipt.json`));
    if (existsSync(jws)) renameSync(jws, join(outDir, `${skill}.${earlier.txHash}.receipt.jws`));
  }
  const kept: KeptSale = {
    skill,
    txHash,
    license: body['license'] ?? (sameSale ? earlier?.license : undefined),
    payment: body['payment'] ?? (sameSale ? earlier?.payment : undefined),
  };
  writeFileSync(record, `${JSON.stringify(kept, null, 2)}\n`);
  // The same sale's receipt is kept as first received (a download again signs it anew, same claims).
  if (typeof body['receipt'] === 'string' && !(sameSale && existsSync(jws))) writeFileSync(jws, `${body['receipt']}\n`);
}

/**
 * Verify before writing: the signed provenance of the version delivered (the unlock's `version`; an
 * unlock without one gets the current version's, whose digest is the seal), every attestation checked
 * by `verifyPack` with the service's JWKS. Answers the version; throws a BuyError, before any file is
 * written, when the service publishes none or anything does not match.
 */
async function verifiedVersion(opts: BuyOptions, base: string, body: Json, files: Record<string, string>): Promise<number> {
  const delivered = at(body, 'version', 'number');
  const refused = (why: string): BuyError =>
    new BuyError(
      `Refused ${opts.skill}: ${why}; nothing was written, what you paid for stays yours, and npm run buy -- ${opts.skill} again gets the pack as its owner without paying.`,
    );
  const query = `skill=${encodeURIComponent(opts.skill)}${typeof delivered === 'number' ? `&version=${delivered}` : ''}`;
  const provenance = await getJson(`${base}/api/packs/provenance?${query}`);
  const attestations = provenance.body['attestations'];
  if (provenance.status !== 200 || !Array.isArray(attestations) || attestations.length === 0)
    throw refused(`${base} publishes no signed provenance for it (GET /api/packs/provenance answered ${provenance.status})`);
  const version = typeof delivered === 'number' ? delivered : Number(provenance.body['version']);
  const jwks = await getJson(`${base}/.well-known/jwks.json`);
  const keys = jwks.body['keys'];
  if (jwks.status !== 200 || !Array.isArray(keys))
    throw refused(`${base} publishes no key set (GET /.well-known/jwks.json answered ${jwks.status})`);
  for (const attestation of attestations as Json[]) {
    try {
      verifyPack({ skill: opts.skill, version, files, bundle: attestation['bundle'], jwks: { keys: keys as JsonWebKey[] } });
    } catch (e) {
      throw refused((e as Error).message.replace(/\.$/, ''));
    }
  }
  return version;
}

/** Steps 7 and 8, whichever way it was paid: save the files and check the seal, then find the row on the ledger. */
async function finish(
  opts: BuyOptions,
  base: string,
  step: (n: number, text: string) => void,
  paid: { txHash: Hex | undefined; body: Json; attempts: number; owned?: boolean },
): Promise<BuyResult> {
  const { txHash, attempts } = paid;
  const owned = paid.owned === true;
  const unlock = { body: paid.body };

  const dir = resolve(opts.outDir, opts.skill);
  const files = at(unlock.body, 'sealed_pack', 'files') as Record<string, string>;
  const version = await verifiedVersion(opts, base, unlock.body, files);
  for (const [path, text] of Object.entries(files)) {
    const target = resolve(dir, path);
    if (!target.startsWith(dir + sep)) throw new Error(`refusing to write outside ${dir}: ${path}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  keepReceipt(resolve(opts.outDir), opts.skill, txHash, unlock.body);
  const saved = Object.fromEntries(Object.keys(files).map((p) => [p, readFileSync(join(dir, p), 'utf8')]));
  const seal = packSeal(packFiles(saved));
  const published = await getJson(`${base}/api/packs?skill=${encodeURIComponent(opts.skill)}`);
  if (seal !== unlock.body['seal'] || seal !== at(published.body, 'seal', 'value'))
    throw new Error(
      `seal mismatch: files ${seal}, unlock ${String(unlock.body['seal'])}, /api/packs ${String(at(published.body, 'seal', 'value'))}`,
    );
  step(
    7,
    `saved ${Object.keys(files).length} files to ${dir} after verifying them against the signed provenance of ${opts.skill}@${version}; seal ${seal.slice(0, 12)}… matches /api/packs`,
  );

  if (txHash === undefined) {
    step(8, 'proof: access by subscription or meter draw, not a transfer of its own (GET /api/access says which)');
    return { txHash, owned, files: Object.keys(files), seal, proofRow: undefined, attempts };
  }
  // The owner's purchase may be older than the newest page: its row is looked up by pages until found.
  let row: Json | undefined;
  let proof = await getJson(`${base}/api/proof?skill=${encodeURIComponent(opts.skill)}&limit=100`);
  for (let pages = 0; pages < 50 && !row; pages++) {
    row = (proof.body['recent_unlocks'] as Json[] | undefined)?.find((r) => String(r['txHash']).toLowerCase() === txHash.toLowerCase());
    const next = proof.body['next_cursor'];
    if (row || typeof next !== 'string') break;
    proof = await getJson(`${base}/api/proof?skill=${encodeURIComponent(opts.skill)}&limit=100&cursor=${encodeURIComponent(next)}`);
  }
  if (!row) throw new Error('the unlock is not on /api/proof');
  step(
    8,
    `proof: on the ledger at ${row['time']} (${proof.body['confirmed']} confirmed unlock${proof.body['confirmed'] === 1 ? '' : 's'} of ${opts.skill})`,
  );
  return { txHash, owned, files: Object.keys(files), seal, proofRow: row, attempts };
}

export const USAGE =
  'usage: npm run buy -- <skill> [--base-url URL] [--rpc-url URL] [--key 0x…] [--asset USDC|USDbC] [--out DIR] [--no-sign] [--x402] [--force]';

/** No skill given: the usage, not a failure of a purchase. */
class UsageError extends Error {}

function parseArgs(argv: string[]): BuyOptions {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--no-sign' || a === '--x402' || a === '--force') flags.set(a.slice(2), 'true');
    else if (a.startsWith('--')) flags.set(a.slice(2), argv[++i] ?? '');
    else positional.push(a);
  }
  const skill = positional[0];
  if (!skill) throw new UsageError();
  const key = flags.get('key');
  const asset = (flags.get('asset') ?? 'USDC') as 'USDC' | 'USDbC';
  if (asset !== 'USDC' && asset !== 'USDbC') throw new Error('--asset is USDC or USDbC');
  const running = toolEndpoints(process.env);
  return {
    skill,
    baseUrl: flags.get('base-url') ?? running.baseUrl,
    rpcUrl: flags.get('rpc-url') ?? running.rpcUrls[0]!,
    account: key ? privateKeyToAccount(key as Hex) : testAccount(1),
    asset,
    outDir: flags.get('out') ?? 'packs',
    sign: !flags.has('no-sign'),
    x402: flags.has('x402'),
    force: flags.has('force'),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  try {
    await buy(parseArgs(args));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(USAGE);
      process.exit(2);
    }
    // A sentence for a person; anything unexpected keeps its first line only (never a library's dump).
    console.error(`buy failed: ${e instanceof BuyError ? e.message : ((e as Error).message ?? String(e)).split('\n')[0]}`);
    process.exit(1);
  }
}
