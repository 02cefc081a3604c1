// Generates the Prisma client offline (SPEC 5b) and skips the work when schema.prisma has not changed.
import { generateClient } from './lib/generated-client.mjs';

generateClient({ force: process.argv.includes('--force') });
