/** The deployment configuration as the Lambdas and the local runtime read it (rules: contract/settings.ts). */
import { readMarketConfig as readWith, SETTINGS, type ConfigReading, type SettingName, type SettingSpec } from '../contract/settings';
import { viemAddressCodec } from './adapters/viem-address';

/** Validates raw settings with the one set of rules; never throws, problems are listed. */
export function readMarketConfig(raw: Partial<Record<SettingName, string>>, opts: { requireTreasury: boolean }): ConfigReading {
  return readWith(raw, opts, viemAddressCodec);
}

/** The raw settings found in environment variables (Lambda and local runtime). */
export function settingsFromEnv(env: NodeJS.ProcessEnv): Partial<Record<SettingName, string>> {
  const raw: Partial<Record<SettingName, string>> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][]) {
    const v = env[spec.env];
    if (v !== undefined) raw[name] = v;
  }
  return raw;
}

/** Reads the settings from environment variables; the treasury is required at run time. */
export function readConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConfigReading {
  return readMarketConfig(settingsFromEnv(env), { requireTreasury: true });
}
