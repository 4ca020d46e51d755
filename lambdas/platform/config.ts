/** The deployment configuration as the Lambdas and the local runtime read it (rules: contract/settings.ts). */
import { readMarketConfig as readWith, settingsFromEnv, type ConfigReading, type SettingName } from '../contract/settings';
import { viemAddressCodec } from './adapters/viem-address';

/** Validates raw settings with the one set of rules; never throws, problems are listed. */
export function readMarketConfig(raw: Partial<Record<SettingName, string>>, opts: { requireTreasury: boolean }): ConfigReading {
  return readWith(raw, opts, viemAddressCodec);
}

/** Reads the settings from environment variables; the treasury is required at run time. */
export function readConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConfigReading {
  return readMarketConfig(settingsFromEnv(env), { requireTreasury: true });
}
