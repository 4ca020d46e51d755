/**
 * A loopback stand-in for KMS's GetPublicKey, for tests only (it lives under test/ and nowhere
 * else): the synthesized bundles reach it through the SDK's own endpoint setting
 * (`AWS_ENDPOINT_URL_KMS`), so what they send is the SDK's real request (JSON 1.1, `X-Amz-Target`),
 * and it answers as KMS does for an ECC_SECG_P256K1 SIGN_VERIFY key: the DER SubjectPublicKeyInfo
 * of one secp256k1 key made at start, whatever the key id. A function reads the escrow operator's
 * address at cold start (it is every auth-capture offer's `captureAuthorizer`), as it would in
 * Lambda. Anything else, a signature above all, is refused and counted: a probe never signs.
 *
 * Given `signingKey`, it is that key's KMS instead, and signs: a digest's DER signature (r, s),
 * with no recovery id and sometimes the high `s`, as KMS answers; so a started service or an
 * operator's tool signs with a "KMS key" through the SDK's real requests.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toHex, type Hex } from 'viem';
import { privateKeyToAccount, publicKeyToAddress, sign } from 'viem/accounts';
import { der, N, SPKI_PREFIX } from './kms-client-stand-in';

export interface KmsStandIn {
  /** `http://127.0.0.1:<port>`; append `/<name>` to count a client's calls apart. */
  base: string;
  /** The key's Ethereum address. */
  address: string;
  /** The regions the requests were signed for (SigV4's credential scope), in order. */
  regions: string[];
  /** Calls of `operation` (`GetPublicKey`, `Sign`, …) seen at `path` (`/<name>`), or in all when no path is given. */
  calls(operation: string, path?: string): number;
  close(): Promise<void>;
}

export async function startKmsStandIn(opts: { signingKey?: Hex } = {}): Promise<KmsStandIn> {
  const { signingKey } = opts;
  const spki = signingKey
    ? Buffer.from(`${SPKI_PREFIX}${privateKeyToAccount(signingKey).publicKey.slice(2)}`, 'hex')
    : generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'der', type: 'spki' });
  let signs = 0;
  const regions: string[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown, type?: string) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(type ? { 'x-amzn-errortype': type } : {}) });
        res.end(JSON.stringify(body));
      };
      const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
      const scope = /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\/kms\//.exec(String(req.headers['authorization'] ?? ''));
      if (scope) regions.push(scope[1]!);
      const path = (req.url ?? '/').replace(/\/+$/, '') || '/';
      const key = `${operation} ${path}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (operation === 'Sign' && signingKey) {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { KeyId: string; Message: string; MessageType: string };
        if (input.MessageType !== 'DIGEST')
          return answer(400, { __type: 'ValidationException', message: 'DIGEST only' }, 'ValidationException');
        void sign({ hash: `0x${Buffer.from(input.Message, 'base64').toString('hex')}`, privateKey: signingKey }).then((sig) => {
          const s = BigInt(sig.s);
          // KMS does not normalise s: the high form every other time.
          const signature = Buffer.from(der(BigInt(sig.r), signs++ % 2 === 0 ? N - s : s)).toString('base64');
          answer(200, { KeyId: input.KeyId, Signature: signature, SigningAlgorithm: 'ECDSA_SHA_256' });
        });
        return;
      }
      if (operation !== 'GetPublicKey')
        return answer(
          400,
          { __type: 'UnsupportedOperationException', message: `not served: ${operation}` },
          'UnsupportedOperationException',
        );
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { KeyId: string };
      answer(200, {
        KeyId: input.KeyId,
        PublicKey: spki.toString('base64'),
        KeySpec: 'ECC_SECG_P256K1',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ECDSA_SHA_256'],
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    address: publicKeyToAddress(toHex(spki.subarray(-65))),
    regions,
    calls: (operation, path) =>
      [...counts]
        .filter(([key]) => key.startsWith(`${operation} `) && (path === undefined || key === `${operation} ${path}`))
        .reduce((sum, [, n]) => sum + n, 0),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
