// Types of config-validator-code.mjs, a plain module because scripts/cli.mjs runs it without a TypeScript loader.
export function configValidatorCode(input: { options: object; schema: object; schemaHash: string }): string;
export function writeConfigValidator(configFolder: string): Promise<void>;
