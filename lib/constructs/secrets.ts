import { RemovalPolicy, SecretValue, Validations, type Stack } from 'aws-cdk-lib';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { ORIGIN_VERIFY_HEADER } from '../../lambdas/contract/edge-identity';
import { SECRET_SETTINGS, SETTINGS } from '../../lambdas/contract/settings';
import type { SharedNeed } from '../domain-infra';

/** The stack's secrets and signing keys; each but the origin secret exists only if a manifest needs it. */
export interface StackSecrets {
  /** Signs license tokens. */
  readonly licenseSecret: Secret | undefined;
  /** What CloudFront sends the API to prove a request came through it. */
  readonly originSecret: Secret;
  /** The Stripe keys, filled by the operator. */
  readonly stripeSecret: Secret | undefined;
  /** JSON-RPC URLs with a provider's API key, filled by the operator. */
  readonly rpcSecret: Secret | undefined;
  /** Signs the A2A agent card (KMS, P-256). */
  readonly serviceKey: Key | undefined;
  /** The x402 relayer's key pool (KMS, secp256k1), `relayerKeys` of them; none when no domain relays. */
  readonly relayerKeys: readonly Key[];
  /** The x402 `auth-capture` escrow operator (KMS, secp256k1); none when no domain relays. */
  readonly escrowOperatorKey: Key | undefined;
}

/**
 * Every secret and KMS key, in the stack's own scope: the license secret, the operator's secrets
 * and the keys are retained (a new one would void every license issued, lose what the operator
 * wrote, or change the relayer's or the escrow operator's address), so their logical ids are their construct ids.
 */
export function createSecrets(stack: Stack, needs: (need: SharedNeed) => boolean, relayerKeyCount = 1): StackSecrets {
  // Signs license tokens; retained, because deleting it would void every license already issued.
  const licenseSecret = needs('licenseKey')
    ? new Secret(stack, 'LicenseSecret', {
        description: 'HS256 key for skill-market license tokens',
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        removalPolicy: RemovalPolicy.RETAIN,
      })
    : undefined;

  // The origin secret CloudFront adds to every API request (an origin custom header, by dynamic
  // reference: the template never holds the value); every API function refuses a request without
  // it, so the execute-api endpoint serves nobody who goes around CloudFront and its web ACL.
  // Rotated once the distribution exists (lib/constructs/rotations.ts); nothing outlives the stack that would need it.
  const originSecret = new Secret(stack, 'OriginSecret', {
    description: `Origin secret CloudFront sends the skill-market API in ${ORIGIN_VERIFY_HEADER}; rotated by the origin-secret rotation function`,
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });

  // The Stripe keys (docs/CHECKOUT.md); until both are set, card checkout answers 503 CHECKOUT_NOT_CONFIGURED.
  const stripeSecret = needs('stripeKeys')
    ? operatorSecret(
        stack,
        'StripeSecret',
        `Stripe keys for skill-market card checkout: JSON fields ${SECRET_SETTINGS.stripeSecretKey.env} and ${SECRET_SETTINGS.stripeWebhookSecret.env}`,
        [SECRET_SETTINGS.stripeSecretKey.env, SECRET_SETTINGS.stripeWebhookSecret.env],
        'Stripe issues and rolls these keys (Dashboard → API keys, webhook signing secret); a rotation Lambda cannot create a Stripe key. The operator rolls them at Stripe and writes them here (docs/CHECKOUT.md); functions read the secret at cold start.',
      )
    : undefined;

  // JSON-RPC URLs that carry a provider's API key (docs/OPERATIONS.md), tried before the rpcUrls
  // setting, which must hold no key (lib/deploy-config.ts refuses one). Until it is filled the public providers answer.
  const rpcSecret = needs('readsChain')
    ? operatorSecret(
        stack,
        'RpcSecret',
        `JSON-RPC providers for chain 8453 with their API keys: JSON field ${SETTINGS.rpcUrls.env}, comma-separated URLs tried before the rpcUrls setting`,
        [SETTINGS.rpcUrls.env],
        'The RPC provider issues and rolls its API keys (Alchemy, Infura, QuickNode dashboards); a rotation Lambda cannot create one. The operator rolls the key at the provider and writes the new URL here (docs/OPERATIONS.md); warm functions read it again within 5 minutes.',
      )
    : undefined;

  // The service key: signs sale receipts and the A2A agent card, published in /.well-known/jwks.json.
  // Its construct id is the one it had when it signed the card only: a new id would replace the key
  // (and with it the published JWKS every receipt and card is checked against).
  const serviceKey = needs('signsWithServiceKey')
    ? signingKey(
        stack,
        'AgentCardKey',
        KeySpec.ECC_NIST_P256,
        'ES256 service key of skill-market: signs sale receipts and the A2A agent card',
      )
    : undefined;
  // The x402 relayer: submits signed authorizations and pays their gas; fund its address
  // (GET /api/ready shows it and its balance) with ETH on Base.
  // A pool of them (core/relayer-pool.ts): each signs for one function instance at a time. The first
  // keeps the id it had before the pool (its address, already funded, stays); fund every one.
  const relayerKeys = needs('relaysPayments')
    ? Array.from({ length: relayerKeyCount }, (_, i) =>
        signingKey(
          stack,
          i === 0 ? 'RelayerKey' : `RelayerKey${i + 1}`,
          KeySpec.ECC_SECG_P256K1,
          `secp256k1 key ${i + 1} of ${relayerKeyCount} of the skill-market x402 relayer pool (submits EIP-3009 authorizations on Base)`,
        ),
      )
    : [];

  // The escrow operator of x402 `auth-capture` (issue 53): every escrowed payment names its address
  // (`captureAuthorizer`), and the escrow lets no other account authorize, capture, void or refund
  // it. One key, outside the relayer pool: a new key would strand every payment authorized for the
  // old address (never captured, the buyer reclaims after its capture deadline). Fund it with ETH
  // for its gas like a pool key (docs/OPERATIONS.md, "The escrow operator key").
  const escrowOperatorKey = needs('relaysPayments')
    ? signingKey(
        stack,
        'EscrowOperatorKey',
        KeySpec.ECC_SECG_P256K1,
        'secp256k1 key of the skill-market x402 auth-capture escrow operator (authorizes, captures, voids and refunds escrowed payments on Base)',
      )
    : undefined;

  return { licenseSecret, originSecret, stripeSecret, rpcSecret, serviceKey, relayerKeys, escrowOperatorKey };
}

/**
 * A retained secret with blank fields that the operator fills after deploy (no value ever passes
 * through the template). Its keys are issued by an outside provider, so no rotation Lambda can
 * make one: `whyNoRotation` acknowledges SMG4.
 */
export function operatorSecret(stack: Stack, id: string, description: string, fields: readonly string[], whyNoRotation: string): Secret {
  const secret = new Secret(stack, id, {
    description,
    secretObjectValue: Object.fromEntries(fields.map((f) => [f, SecretValue.unsafePlainText('')])),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: whyNoRotation });
  return secret;
}

/** A retained KMS signing key whose private half never leaves KMS. */
const signingKey = (stack: Stack, id: string, keySpec: KeySpec, description: string): Key =>
  new Key(stack, id, { description, keySpec, keyUsage: KeyUsage.SIGN_VERIFY, removalPolicy: RemovalPolicy.RETAIN });
