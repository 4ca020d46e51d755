/** The agents domain works through the payments ports and the access ports, plus its own. Interfaces only. */
import type { TaskStore } from '@a2a-js/sdk/server';
import type { JsonWebKey } from 'node:crypto';
import type { AccessPorts } from '../access';
import type { PaymentsPorts } from '../payments';

/** Signs the agent card (ES256); hides where the private key lives (KMS in AWS, a file locally). */
export interface CardSigner {
  /** ES256 signature of the bytes: 64 bytes, r then s. */
  sign(input: Uint8Array): Promise<Uint8Array>;
  /** The public key as a JWK (kty EC, crv P-256). */
  publicJwk(): Promise<JsonWebKey>;
}

export interface AgentsPorts extends PaymentsPorts {
  /** The access domain's ports: unlocks (mandates, wallet access), access decisions and mandates over MCP and A2A. */
  access: AccessPorts;
  tasks: TaskStore;
  cardSigner: CardSigner;
}
