/** Configuration: one typed value, validated at start-up. */
/** Loads defaults < YAML < INFERLENS_* env < flags and validates, listing every problem. */
export { loadConfig, databasePath, keysFilePath, deprecationMessage, ConfigSchema, ENV_VARS } from './config.ts';
export type { Config, ConfigInput, LoadConfigOptions } from './config.ts';
export type { KeyDeprecation } from './config-keys.ts';
