/**
 * `npm run verify-receipt -- <receipt or @file> [--issuer <base URL>] [--jwks <file or URL>]`: checks a sale's receipt (a compact JWS,
 * lambdas/contract/receipt.ts) against the service key and prints its claims as JSON (exit 0), or
 * says in one sentence why not (exit 1). An escrowed sale's facts (x402 `auth-capture`: the escrow,
 * the payment's hash, its authorize and capture) are also said in one sentence on stderr.
 *
 * The exit code is the answer a script reads, so the key that checks the receipt is never chosen by
 * the receipt: its `iss` and `jku` are the signer's own words, and a receipt an attacker signed
 * names the attacker's JWKS (`http://attacker/http/<service>` only looks like the service; issue
 * 50, finding 9). The caller pins where the key comes from: `--issuer` (the service's base URL,
 * exactly as it signs it: the JWKS is fetched from `<issuer>/.well-known/jwks.json`, and the
 * verified `iss` must equal it) or `--jwks` (a saved jwks.json, which needs no network; with
 * `--issuer` too, `iss` is compared as well). With neither, the issuer is the service the running
 * `npm start` serves (its endpoints file, local/endpoints.ts: this machine's own record, never the
 * receipt's word); with no start running either, the receipt is refused as not pinned.
 */
import { readFileSync } from 'node:fs';
import { compactVerify, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { links } from '../lambdas/contract/links';
import { RECEIPT_ALG, RECEIPT_TYPE, type ReceiptClaims } from '../lambdas/contract/receipt';
import { readEndpoints } from './endpoints';

const USAGE =
  'Usage: npm run verify-receipt -- <receipt or @file> [--issuer <the service’s base URL>] [--jwks <file or URL>] (no option: the service npm start runs here)';

const NOT_PINNED =
  'The receipt was not pinned: pass --issuer with the base URL of the service you bought from (its JWKS is fetched from there), or --jwks with its saved jwks.json (with neither, the service npm start runs here is the issuer, and none is running).';

/** A refusal: one sentence for the user, exit 1. */
class Refusal extends Error {}

const isUrl = (s: string): boolean => /^https?:\/\//.test(s);

/** What the caller pinned the receipt to: the service it bought from, the key set it saved, or both. */
interface Pins {
  issuer: string | undefined;
  jwks: string | undefined;
}

/** Removes `--name <value>` from `args` and returns the value (undefined when the option is absent). */
function takeOption(args: string[], name: string, needs: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (!value || value.startsWith('--')) throw new Refusal(`${name} needs ${needs}. ${USAGE}`);
  args.splice(at, 2);
  return value;
}

function parseArgs(argv: string[]): { receipt: string; pins: Pins } {
  const args = [...argv];
  const jwks = takeOption(args, '--jwks', 'a file or a URL');
  const named = takeOption(args, '--issuer', 'the service’s base URL');
  if (args.length !== 1) throw new Refusal(USAGE);
  // Unpinned by the caller: the service this machine's running start serves, from its own record.
  const issuer = named ?? (jwks === undefined ? readEndpoints(process.env)?.endpoints.baseUrl : undefined);
  if (issuer !== undefined && !isUrl(issuer)) throw new Refusal(`--issuer must be an http(s) URL, the service’s base URL; got ${issuer}.`);
  if (issuer === undefined && jwks === undefined) throw new Refusal(NOT_PINNED);
  const arg = args[0]!;
  const text = arg.startsWith('@') ? readOrRefuse(arg.slice(1), 'receipt') : arg;
  return { receipt: text.trim(), pins: { issuer, jwks } };
}

function readOrRefuse(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Refusal(`Cannot read the ${what} file ${file}: ${(e as Error).message}.`);
  }
}

async function verifyReceipt(receipt: string, pins: Pins): Promise<ReceiptClaims> {
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(receipt)) throw new Refusal('This is not a compact JWS (three base64url parts joined by dots).');
  let header;
  try {
    header = decodeProtectedHeader(receipt);
  } catch {
    throw new Refusal('The receipt’s protected header is not valid base64url JSON.');
  }
  if (header.typ !== RECEIPT_TYPE)
    throw new Refusal(`This JWS is not a sale receipt: its typ is ${JSON.stringify(header.typ)}, not "${RECEIPT_TYPE}".`);
  // Where the key comes from is the caller's choice alone (parseArgs made sure there is one).
  const source = pins.jwks ?? links(pins.issuer!).jwks;
  const keys = isUrl(source)
    ? createRemoteJWKSet(new URL(source))
    : createLocalJWKSet(
        (() => {
          try {
            return JSON.parse(readOrRefuse(source, 'JWKS')) as JSONWebKeySet;
          } catch (e) {
            if (e instanceof Refusal) throw e;
            throw new Refusal(`The JWKS file ${source} is not JSON.`);
          }
        })(),
      );
  let claims: ReceiptClaims;
  try {
    const { payload } = await compactVerify(receipt, keys, { algorithms: [RECEIPT_ALG] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as ReceiptClaims;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED')
      throw new Refusal('The signature does not verify: the receipt was changed, or another key signed it.');
    if (code === 'ERR_JWKS_NO_MATCHING_KEY') throw new Refusal(`No key in ${source} has the receipt’s kid ${String(header.kid)}.`);
    throw new Refusal(`The receipt does not verify against ${source}: ${(e as Error).message}.`);
  }
  // Only now is `iss` the key holder's statement; it must name the service the caller pinned, string for string.
  if (pins.issuer !== undefined && claims.iss !== pins.issuer)
    throw new Refusal(
      `The receipt’s issuer ${String(claims.iss)} is not the pinned issuer ${pins.issuer}: it does not come from the service you named.`,
    );
  return claims;
}

/** An escrowed sale's facts in one sentence: where the money went, under which payment, and whether a capture was sent. */
function escrowFacts(escrow: NonNullable<ReceiptClaims['escrow']>): string {
  const into = escrow.contract ? ` into the escrow ${escrow.contract}` : '';
  const captured = escrow.capture_tx
    ? `captured to the seller in ${escrow.capture_tx}`
    : 'no capture had been sent when this receipt was signed';
  return `Paid by escrow (x402 ${escrow.scheme}): authorized${into} in ${escrow.authorize_tx} as payment ${escrow.payment_hash}; ${captured}.`;
}

async function main(): Promise<void> {
  try {
    const { receipt, pins } = parseArgs(process.argv.slice(2));
    const claims = await verifyReceipt(receipt, pins);
    process.stdout.write(`${JSON.stringify(claims, null, 2)}\n`);
    // The claims stay the only stdout (a script parses them); the escrow's facts are said to the person too.
    if (claims.escrow) process.stderr.write(`${escrowFacts(claims.escrow)}\n`);
  } catch (e) {
    process.stderr.write(`${e instanceof Refusal ? e.message : `Cannot verify the receipt: ${(e as Error).message}.`}\n`);
    process.exitCode = 1;
  }
}

await main();
