/** Builds the discovery ports from the environment, through the catalog's and payments' public faces. */
import { catalogFromEnv } from '../catalog/wiring';
import { figuresFromEnv, ledgerFromEnv } from '../payments/wiring';
import { readConfigFromEnv } from '../platform/config';
import type { DiscoveryPorts } from './ports';

export function discoveryPortsFromEnv(): DiscoveryPorts {
  return {
    config: readConfigFromEnv().config,
    catalog: catalogFromEnv(),
    ledger: ledgerFromEnv(),
    figures: figuresFromEnv(),
    now: () => new Date(),
  };
}
