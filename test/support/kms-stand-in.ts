/**
 * A loopback stand-in for KMS's GetPublicKey, for tests only (it lives under test/ and nowhere
 * else): the synthesized bundles reach it through the SDK's own endpoint setting
 * (`AWS_ENDPOINT_URL_KMS`), so what they send is the SDK's real request (JSON 1.1, `X-Amz-Target`),
 * and it answers as KMS does for an ECC_SECG_P256K1 SIGN_VERIFY key: the DER SubjectPublicKeyInfo
 * of one secp256k1 key made at start, whatever the key id. A function reads the escrow operator's
 * address at cold start (it is every auth-capture offer's `captureAuthorizer`), as it would in
 * Lambda. Anything else, a signature above all, is refused and counted: a probe never signs.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KmsStandIn {
  /** `http://127.0.0.1:<port>`; append `/<name>` to count a client's calls apart. */
  base: string;
  /** Calls of `operation` (`GetPublicKey`, `Sign`, …) seen at `path` (`/<name>`), or in all when no path is given. */
  calls(operation: string, path?: string): number;
  close(): Promise<void>;
}

export async function startKmsStandIn(): Promise<KmsStandIn> {
  const spki = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'der', type: 'spki' });
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
      const path = (req.url ?? '/').replace(/\/+$/, '') || '/';
      const key = `${operation} ${path}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
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
