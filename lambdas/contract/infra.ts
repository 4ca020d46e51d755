/**
 * The shape of a domain's infrastructure manifest (`lambdas/<domain>/infra.ts`): what its
 * functions need from the stack. The CDK stack reads the manifests and has no branch for any
 * domain; a new domain declares its needs beside its code.
 */
import type { DataDir } from './env';

export type TableAccess = 'describe' | 'read' | 'readWrite';

export interface DomainInfra {
  /** Tables the domain's functions may touch (by logical name), and how; least privilege. */
  tables: readonly { table: string; access: TableAccess }[];
  /** DescribeTable on every table (readiness reports on all of them). */
  describesAllTables?: boolean;
  /** Built data the bundle carries; the catalog is always carried. */
  data?: readonly DataDir[];
  /** Reads the license signing key (issues or verifies license tokens). */
  licenseKey?: boolean;
  /** Starts confirmation loops (gets the state machine's ARN and states:StartExecution). */
  startsConfirmations?: boolean;
  /** Reads the Stripe keys (card checkout): the stack's Stripe secret, whose ARN it gets. */
  stripeKeys?: boolean;
  /** Signs the agent card with the KMS key (kms:Sign and kms:GetPublicKey only). */
  signsAgentCard?: boolean;
  /** The Lambda entry (under the domain's folder) that the confirmation state machine invokes, if the domain owns it. */
  confirmationTask?: string;
}
