import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// What the service's start loads: not Prisma's runtime (the start reads through plain SQL, and takes the signing keys'
// lock only when a key is due) nor the passkeys library (loaded by the first ceremony): each was ~0.15-0.4 s of every
// start (bench/RESULTS.md "The service's start"). Seen from outside, by the URLs the process's module loader loads.
const RECORDER = new URL('../helpers/module-recorder.mjs', import.meta.url).pathname;
// Prisma's runtime, its query compiler and its driver adapters; not index-browser.mjs, the enums' few lines the
// repositories name columns by (rows.ts).
const PRISMA_RUNTIME = /\/node_modules\/(@prisma\/client\/runtime\/(client|query_compiler)|@prisma\/adapter-pg\/|pglite-prisma-adapter\/)/;

describe(`what the service's start loads (${backend})`, () => {
  let fixture: ServiceFixture;

  beforeAll(async () => {
    fixture = await serviceFixture('oauth-boot-loads-');
    // The first start makes the database and the signing keys (through Prisma, under the keys' lock).
    const first = await startService(fixture.env);
    expect(await stopService(first.child)).toBe(0);
  }, 90_000);
  afterAll(() => fixture.dispose());

  it("a start on a database with its keys loads neither Prisma's runtime nor the passkeys library", async () => {
    const record = join(fixture.env.DATA_DIR!, 'loaded-modules');
    const service = await startService({ ...fixture.env, NODE_OPTIONS: `--import ${RECORDER}`, MODULE_RECORD_FILE: record });
    try {
      const loaded = readFileSync(record, 'utf8').split('\n');
      // The record sees packages: the service's own JOSE library, which it loads at start.
      expect(loaded.some((url) => url.includes('/node_modules/jose/'))).toBe(true);
      expect(loaded.filter((url) => PRISMA_RUNTIME.test(url))).toEqual([]);
      expect(loaded.filter((url) => url.includes('/node_modules/@simplewebauthn/server/'))).toEqual([]);
    } finally {
      expect(await stopService(service.child)).toBe(0);
    }
  }, 90_000);
});
