/** Builds the discovery ports from the environment, through the catalog's and payments' public faces. */
import { catalogFromEnv } from '../catalog';
import { figuresFromEnv, ledgerFromEnv, serviceSignerFromEnv } from '../ledger';
import { escrowOfferFromEnv } from '../payments';
import { INFRA_ENV } from '../contract/env';
import { readConfigFromEnv } from '../platform/config';
import { originSecretTarget } from '../platform/origin-secret-rotation';
import type { RotationTarget, SecretVersions } from '../platform/secret-rotation';
import { PROVENANCE_TABLE } from '../contract/tables';
import { catalogDataDir } from '../platform/data-dirs';
import { cacheUntilFailure } from '../platform/memo';
import { tableName } from '../platform/table-names';
import type { DiscoveryPorts, ProvenancePorts } from './ports';

export async function discoveryPortsFromEnv(): Promise<DiscoveryPorts> {
  const [catalog, ledger, figures] = await Promise.all([catalogFromEnv(), ledgerFromEnv(), figuresFromEnv()]);
  const config = readConfigFromEnv().config;
  return {
    config,
    catalog,
    ledger,
    figures,
    now: () => new Date(),
    provenance: cacheUntilFailure(() => provenancePortsFromEnv(config.transparencyLogUrl)),
    // Unreadable (KMS refusing the key) or not delegated to its guard, the list offers exact alone, as
    // the 402s then do; read again on a later request.
    escrowOperator: escrowOfferFromEnv(process.env, config),
  };
}

/**
 * The provenance route's ports: the versions' inputs in the bundle's catalog data, the service key
 * through Sigstore's signer (logged in `transparencyLogUrl`'s Rekor when set), the provenance
 * table. Their libraries (@sigstore/sign, the DynamoDB client) load here, on the route's first request.
 */
export async function provenancePortsFromEnv(transparencyLogUrl: string | undefined): Promise<ProvenancePorts> {
  const [{ sigstoreStatementSigner }, { dynamoSignedStatements }, { fileProvenanceInputs }, { dynamoClient }, service] = await Promise.all([
    import('./adapters/sigstore-statement-signer'),
    import('./adapters/dynamo-signed-statements'),
    import('./adapters/file-provenance-inputs'),
    import('../platform/adapters/dynamo-client'),
    serviceSignerFromEnv(),
  ]);
  return {
    inputs: fileProvenanceInputs(catalogDataDir()),
    signer: sigstoreStatementSigner(service, { rekorUrl: transparencyLogUrl }),
    store: dynamoSignedStatements(dynamoClient(), tableName(PROVENANCE_TABLE)),
  };
}

/**
 * What the origin secret's rotation steps need (origin-secret-rotation-handler.ts): the secret's
 * versions, and the distribution whose API origin sends it (the stack names it). Its clients load
 * here, on the rotation's first step: the discovery API function, whose ports this file also
 * builds, never parses the CloudFront client.
 */
export async function originRotationPortsFromEnv(secretId: string): Promise<{ secret: SecretVersions; target: RotationTarget }> {
  const distributionId = process.env[INFRA_ENV.originDistributionId];
  if (!distributionId)
    throw new Error(`${INFRA_ENV.originDistributionId} is not set: the rotation does not know which distribution sends the secret`);
  const [{ cloudFrontOriginHeader }, { secretsManagerVersions }] = await Promise.all([
    import('../platform/adapters/cloudfront-origin-header'),
    import('../platform/adapters/secret-versions'),
  ]);
  return {
    secret: secretsManagerVersions(secretId),
    target: originSecretTarget(cloudFrontOriginHeader(distributionId), (ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}
