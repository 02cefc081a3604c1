// `npm run build`'s last step: dist/config/config-validator.generated.js (see scripts/lib/config-validator-code.mjs).
import { resolve } from 'node:path';
import { writeConfigValidator } from './lib/config-validator-code.mjs';

await writeConfigValidator(resolve(process.argv[2] ?? 'dist/config'));
