import { describeDocumentCommands } from '../helpers/docs-commands-suite.js';

// The commands of the README (test/helpers/docs-commands-suite.ts); those of docs/ are in docs-commands-guides.test.ts
// and docs-commands-operations.test.ts.
describeDocumentCommands((file) => file === 'README.md');
