import { describeDocumentCommands } from '../helpers/docs-commands-suite.js';

// The commands of docs/ (test/helpers/docs-commands-suite.ts) but operations.md's (docs-commands-operations.test.ts).
describeDocumentCommands((file) => file.startsWith('docs/') && file !== 'docs/operations.md');
