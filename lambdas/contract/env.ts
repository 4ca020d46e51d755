/**
 * The environment variables that join the stack (lib/) and the local runtime (local/) to the
 * Lambdas, beyond the settings (settings.ts) and table names (tables.ts). Both sides read the
 * names from here, so a rename cannot leave one side behind.
 */
export const INFRA_ENV = {
  /** Secrets Manager ARN of the license signing key (AWS). */
  licenseSecretArn: 'LICENSE_SECRET_ARN',
  /** File holding the license signing key (local run). */
  licenseSecretFile: 'LICENSE_SECRET_FILE',
  /** Secrets Manager ARN of the Stripe secret: a JSON object with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (AWS). */
  stripeSecretArn: 'STRIPE_SECRET_ARN',
  /**
   * Secrets Manager ARN of the RPC secret (AWS): a JSON object whose `RPC_URLS` field lists
   * JSON-RPC URLs that carry a provider's API key, tried before the `rpcUrls` setting. Keyed URLs
   * never travel as environment variables or CDK context.
   */
  rpcSecretArn: 'RPC_SECRET_ARN',
  /** ARN of the confirmation state machine; without it the local in-process loop runs. */
  confirmationStateMachineArn: 'CONFIRMATION_STATE_MACHINE_ARN',
  /** KMS key of the service's signing key (AWS): signs sale receipts and the agent card, published in /.well-known/jwks.json. */
  serviceKeyKmsKeyId: 'SERVICE_KEY_KMS_KEY_ID',
  /** File holding the service's P-256 signing key (local run). */
  serviceKeyFile: 'SERVICE_KEY_FILE',
  /** SSM parameter holding the advertised base URL (the CloudFront domain), when no custom domain is set. */
  publicBaseUrlParameter: 'PUBLIC_BASE_URL_PARAMETER',
  /**
   * Private keys of the relayer key pool that submits x402 authorizations, comma-separated (local
   * run only: anvil test accounts). In AWS each pool key is a KMS key and no private key exists.
   */
  relayerPrivateKeys: 'RELAYER_PRIVATE_KEYS',
  /** KMS keys (ECC_SECG_P256K1) of the relayer key pool, comma-separated (AWS): each may only Sign and GetPublicKey. */
  relayerKmsKeyIds: 'RELAYER_KMS_KEY_IDS',
  /**
   * The escrow operator's private key (local run only: an anvil test account): the `captureAuthorizer`
   * of x402 `auth-capture` payments, the only account the escrow lets authorize, capture, void or
   * refund them. Without it (or the KMS key below) no `auth-capture` entry is offered.
   */
  escrowOperatorPrivateKey: 'ESCROW_OPERATOR_PRIVATE_KEY',
  /** KMS key (ECC_SECG_P256K1) of the escrow operator (AWS): it may only Sign and GetPublicKey. */
  escrowOperatorKmsKeyId: 'ESCROW_OPERATOR_KMS_KEY_ID',
  /**
   * The tip (max priority fee per gas, in wei) the relayer offers on each transaction (local run:
   * Base's usual, since anvil suggests at least 1 gwei, a thousand times Base's). Unset (AWS): the
   * node's own suggestion, as viem reads it.
   */
  relayerPriorityFeeWei: 'RELAYER_PRIORITY_FEE_WEI',
  /**
   * Secrets Manager ARN of the origin secret CloudFront adds to every API request (AWS, every API
   * function). With it or the file below the API serves only requests that carry the secret, and
   * takes the caller from the edge's viewer-address header (contract/edge-identity.ts).
   */
  originSecretArn: 'ORIGIN_SECRET_ARN',
  /** File holding the origin secret the local edge adds (local run; created once per data dir). */
  originSecretFile: 'ORIGIN_SECRET_FILE',
  /** The CloudFront distribution whose API origin carries the origin secret (the rotation function only). */
  originDistributionId: 'ORIGIN_DISTRIBUTION_ID',
  /**
   * Secrets Manager ARN of the synthetic purchase's funding wallet (AWS): a JSON object whose
   * {@link SYNTHETIC_FUNDER_KEY_FIELD} is the private key of a Base wallet the operator funds with
   * USDC and ETH; each run sends a fresh buyer the canary's price from it (docs/OPERATIONS.md).
   */
  syntheticFunderSecretArn: 'SYNTHETIC_FUNDER_SECRET_ARN',
  /** DynamoDB endpoint override: DynamoDB Local locally; unset in AWS. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /**
   * The S3 bucket holding every published pack version under `sha256/<digest>.json` (issue 52):
   * write-once, read by the functions that deliver packs. Unset locally, where dist/versions is read.
   */
  packVersionsBucket: 'PACK_VERSIONS_BUCKET',
} as const;

/** The field of the synthetic purchase's secret that holds the funding wallet's private key (0x + 64 hex). */
export const SYNTHETIC_FUNDER_KEY_FIELD = 'FUNDER_PRIVATE_KEY';

/** Built data directories a bundle may carry, and the variable that says where each is. */
export const DATA_ENV = { catalog: 'CATALOG_DATA_DIR', sealed: 'SEALED_DATA_DIR', versions: 'VERSIONS_DATA_DIR' } as const;
export type DataDir = keyof typeof DATA_ENV;
