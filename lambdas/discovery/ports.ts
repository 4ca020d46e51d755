/** What the discovery domain needs: configuration, the catalog, a read-only view of the ledger and its figures. Interfaces only. */
import type { Catalog } from '../catalog';
import type { MarketConfig } from '../contract/settings';
import type { ProvenanceInput, ProvenancePredicateType } from '../contract/provenance';
import type { Figures, Ledger } from '../ledger';

export interface DiscoveryPorts {
  config: MarketConfig;
  catalog: Catalog;
  ledger: Pick<Ledger, 'recent' | 'get'>;
  figures: Pick<Figures, 'totals'>;
  now: () => Date;
  /**
   * What the provenance route needs, made on its first request (the Sigstore libraries, the key,
   * the table and the versions' inputs load then, never at a cold start of another route).
   */
  provenance: () => Promise<ProvenancePorts>;
  /** The escrow operator's address, which every x402 auth-capture offer names (undefined: none is offered); read on first use. */
  escrowOperator: () => Promise<string | undefined>;
}

/** Every skill's versions without their bytes, as the build wrote them (dist/catalog/provenance-inputs.json). */
export interface ProvenanceInputSource {
  /** A skill's versions, oldest first; undefined for a skill with none. */
  versions(skillId: string): Promise<readonly ProvenanceInput[] | undefined>;
}

/** Signs an in-toto statement with the service key into a Sigstore bundle (its JSON form). */
export interface StatementSigner {
  sign(payload: string): Promise<SigstoreBundleJson>;
}

/** A Sigstore bundle v0.3 in its JSON form (`@sigstore/bundle`'s `bundleToJSON`). */
export type SigstoreBundleJson = Record<string, unknown>;

/**
 * The signed statements, each kept once: ECDSA signatures are random, so a statement is signed on
 * its first request and every later request reads the same bundle. Write-once: the first writer
 * wins and every other reads the winner.
 */
export interface SignedStatementStore {
  get(digest: string, type: ProvenancePredicateType): Promise<SigstoreBundleJson | undefined>;
  /** Keeps `bundle` unless one is kept already; answers the kept one (this one, or the earlier writer's). */
  keepFirst(digest: string, type: ProvenancePredicateType, bundle: SigstoreBundleJson): Promise<SigstoreBundleJson>;
}

export interface ProvenancePorts {
  inputs: ProvenanceInputSource;
  signer: StatementSigner;
  store: SignedStatementStore;
}
