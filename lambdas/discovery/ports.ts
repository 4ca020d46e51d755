import { readConfigFromEnv, type ConfigReading } from '#shared/config';
import { dynamoClient } from '#shared/adapters/dynamo-client';
import { dynamoTableProbe, type TableStatus } from '#shared/adapters/table-probe';
import { viemChainIdProbe, type ProviderChainId } from '#shared/adapters/chain-id-probe';
import { TABLES } from '#shared/tables';

/** What the discovery domain needs from the outside world. */
export interface DiscoveryPorts {
  config: ConfigReading;
  probeTables: () => Promise<TableStatus[]>;
  probeChainIds: (urls: readonly string[]) => Promise<ProviderChainId[]>;
  now: () => Date;
}

/** Wires the real adapters from the environment (Lambda and local runtime alike). */
export function discoveryPortsFromEnv(): DiscoveryPorts {
  return {
    config: readConfigFromEnv(),
    probeTables: dynamoTableProbe(dynamoClient(), TABLES),
    probeChainIds: viemChainIdProbe(),
    now: () => new Date(),
  };
}
