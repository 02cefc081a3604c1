// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// STYLE.md "Dependency direction": http -> oauth <- storage; config handed down; only app.ts (and the
// CLI, the other composition root) sees every layer. A wrong arrow fails CI here instead of in review.
const npmPackages = [
  'fastify',
  '@fastify/*',
  'fastify-plugin',
  '@prisma/*',
  'pg',
  '@electric-sql/*',
  'pglite-prisma-adapter',
  'eta',
  '@node-rs/*',
  'pino',
  'ajv',
  'ajv-formats',
];

// The guard is its own package (packages/guard): everything else imports it as '@oauth-service/guard', never by
// path (its unit tests excepted), so the service uses exactly what an API installs.
const guardByPath = { group: ['**/packages/guard/**'], message: "Import the guard as '@oauth-service/guard' (its package), not by path." };
// A block's no-restricted-imports replaces an earlier block's for the same file, so every block repeats guardByPath.
const restrictOnly = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns: [...patterns, guardByPath] }] });

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'src/storage/generated/', 'data/', 'coverage/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['test/unit/guard-*.test.ts'],
    rules: restrict([]),
  },
  {
    files: ['src/oauth/**/*.ts'],
    rules: restrict([
      { group: npmPackages, message: 'The OAuth domain is framework-free: node:* and itself only (STYLE.md).' },
      {
        group: ['**/http/**', '**/storage/**', '**/cli/**', '@oauth-service/guard', '**/app.js'],
        message: 'oauth must not depend on http, storage, cli or guard.',
      },
    ]),
  },
  {
    files: ['src/storage/**/*.ts'],
    rules: restrict([
      { group: ['fastify', '@fastify/*', 'fastify-plugin', 'eta'], message: 'storage does not know about HTTP.' },
      {
        group: ['**/http/**', '**/cli/**', '@oauth-service/guard', '**/app.js'],
        message: 'storage implements oauth/store.ts and depends on nothing above it.',
      },
    ]),
  },
  {
    files: ['src/http/**/*.ts'],
    rules: restrict([
      {
        group: ['**/storage/**', '@prisma/*', 'pg', '@electric-sql/*', 'pglite-prisma-adapter'],
        message: 'http reaches data only through the oauth domain (STYLE.md).',
      },
      { group: ['**/cli/**'], message: 'http must not depend on the CLI.' },
    ]),
  },
  {
    // Issue 15: http and the CLI ask the domain (src/oauth's functions), which owns the rules; the stores are the
    // domain's storage interface, never reached from above it. The composition roots (app.ts, cli/context.ts)
    // build the deps object, which names `stores` only as a key.
    files: ['src/http/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='stores']",
          message: 'http and cli call domain functions (src/oauth), not deps.stores.',
        },
        {
          selector: "ObjectPattern > Property[key.name='stores']",
          message: 'http and cli call domain functions (src/oauth), not deps.stores.',
        },
      ],
    },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: restrict([
      {
        group: ['**/http/**', '**/storage/**', '**/oauth/**', '**/cli/**', '@oauth-service/guard', 'fastify', '@fastify/*'],
        message: 'config depends on nothing but its schema.',
      },
    ]),
  },
  {
    // Helpers the benchmarks and the tests share live in scripts/lib, so neither imports the other's helpers.
    files: ['bench/**/*.ts'],
    rules: restrict([{ group: ['**/test/**'], message: 'A helper bench/ and test/ share belongs in scripts/lib.' }]),
  },
  {
    files: ['scripts/lib/**/*.ts'],
    rules: restrict([{ group: ['**/test/**', '**/bench/**'], message: 'scripts/lib is shared by bench/ and test/ and imports neither.' }]),
  },
  {
    // Issue 30: no import circles in the product or the guard. A circle means two files are one subject, or a shared
    // type lives in the wrong file: move it to the lower one. (no-cycle follows value imports only; circles of
    // type-only imports fail test/unit/import-circles.test.ts.)
    files: ['src/**/*.ts', 'packages/guard/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // The dependencies are TypeScript files, read with typescript-eslint's parser (else no-cycle skips them).
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: ['tsconfig.json', 'packages/guard/tsconfig.json'], noWarnOnMultipleProjects: true }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Shipped on its own with fastify as its only peer and fastify-plugin and jose (JWT mode) as its only dependencies
    // (packages/guard/package.json).
    files: ['packages/guard/**/*.ts'],
    rules: restrictOnly([
      {
        regex: '^(?!node:|\\./|fastify$|fastify-plugin$|jose$)',
        message: 'The guard imports node:*, fastify, fastify-plugin, jose and its own files (./*.js) only, so it ships on its own.',
      },
    ]),
  },
);
