/**
 * `npm run verify-receipt -- <receipt or @file> [--jwks <file or URL>]`: checks a sale's receipt
 * (a compact JWS, lambdas/contract/receipt.ts) against the service key and prints its claims as
 * JSON (exit 0), or says in one sentence why not (exit 1). With `--jwks` naming a saved
 * jwks.json it needs no network. Without it, the JWKS of the receipt's issuer
 * (`<iss>/.well-known/jwks.json`) is fetched: that proves the receipt comes from whoever serves
 * `iss`, so check that `iss` is the service you bought from.
 */
import { readFileSync } from 'node:fs';
import { compactVerify, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { links } from '../lambdas/contract/links';
import { RECEIPT_ALG, RECEIPT_TYPE, type ReceiptClaims } from '../lambdas/contract/receipt';

const USAGE = 'Usage: npm run verify-receipt -- <receipt or @file> [--jwks <file or URL>]';

/** A refusal: one sentence for the user, exit 1. */
class Refusal extends Error {}

function parseArgs(argv: string[]): { receipt: string; jwks: string | undefined } {
  const args = [...argv];
  let jwks: string | undefined;
  const at = args.indexOf('--jwks');
  if (at >= 0) {
    jwks = args[at + 1];
    if (!jwks) throw new Refusal(`--jwks needs a file or a URL. ${USAGE}`);
    args.splice(at, 2);
  }
  if (args.length !== 1) throw new Refusal(USAGE);
  const arg = args[0]!;
  const text = arg.startsWith('@') ? readOrRefuse(arg.slice(1), 'receipt') : arg;
  return { receipt: text.trim(), jwks };
}

function readOrRefuse(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Refusal(`Cannot read the ${what} file ${file}: ${(e as Error).message}.`);
  }
}

const isUrl = (s: string): boolean => /^https?:\/\//.test(s);

/** The claims' issuer, read before verification only to find its JWKS (nothing else is trusted until verified). */
function unverifiedIssuer(receipt: string): string {
  try {
    const iss = (JSON.parse(Buffer.from(receipt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown }).iss;
    if (typeof iss === 'string' && isUrl(iss)) return iss;
  } catch {
    // fall through to the refusal
  }
  throw new Refusal('The receipt names no issuer URL to fetch its key from: pass --jwks with the service’s jwks.json.');
}

async function verifyReceipt(receipt: string, jwks: string | undefined): Promise<ReceiptClaims> {
  if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(receipt)) throw new Refusal('This is not a compact JWS (three base64url parts joined by dots).');
  let header;
  try {
    header = decodeProtectedHeader(receipt);
  } catch {
    throw new Refusal('The receipt’s protected header is not valid base64url JSON.');
  }
  if (header.typ !== RECEIPT_TYPE)
    throw new Refusal(`This JWS is not a sale receipt: its typ is ${JSON.stringify(header.typ)}, not "${RECEIPT_TYPE}".`);
  const source = jwks ?? links(unverifiedIssuer(receipt)).jwks;
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
  try {
    const { payload } = await compactVerify(receipt, keys, { algorithms: [RECEIPT_ALG] });
    return JSON.parse(new TextDecoder().decode(payload)) as ReceiptClaims;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED')
      throw new Refusal('The signature does not verify: the receipt was changed, or another key signed it.');
    if (code === 'ERR_JWKS_NO_MATCHING_KEY') throw new Refusal(`No key in ${source} has the receipt’s kid ${String(header.kid)}.`);
    throw new Refusal(`The receipt does not verify against ${source}: ${(e as Error).message}.`);
  }
}

async function main(): Promise<void> {
  try {
    const { receipt, jwks } = parseArgs(process.argv.slice(2));
    const claims = await verifyReceipt(receipt, jwks);
    process.stdout.write(`${JSON.stringify(claims, null, 2)}\n`);
  } catch (e) {
    process.stderr.write(`${e instanceof Refusal ? e.message : `Cannot verify the receipt: ${(e as Error).message}.`}\n`);
    process.exitCode = 1;
  }
}

await main();
