import { describeDocumentCommands } from '../helpers/docs-commands-suite.js';

// The commands of docs/operations.md (test/helpers/docs-commands-suite.ts).
describeDocumentCommands((file) => file === 'docs/operations.md');
