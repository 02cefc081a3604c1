import { join } from 'node:path';
import type { Config } from '../../config/types.js';
import type { SigningKeyDeps } from './signing-key-service.js';
import { keysThatSign } from './signing-keys.js';

// Issue 31 item 6: a server started with another KEY_ENCRYPTION_KEY than the one its signing keys were stored under
// (typically the development key of data/key-encryption-key, then a real one as the boot's warning says) answered
// every code exchange with 500. It now stops at boot instead, naming the keys and the way out (`keys rewrap`).

/** From SigningKeyStore.privateJwk: the stored private key does not decrypt with this KEY_ENCRYPTION_KEY. */
export class PrivateKeyUndecryptable extends Error {
  constructor(readonly kid: string) {
    super(`the private key of ${kid} does not decrypt: KEY_ENCRYPTION_KEY is not the key it was stored with`);
    this.name = 'PrivateKeyUndecryptable';
  }
}

/** The boot's refusal: which keys, and how to go on. */
export class SigningKeysUndecryptable extends Error {
  /** `developmentKey`: where a development server kept its key, in the data folder it ran on (DATA_DIR). */
  constructor(
    readonly kids: readonly string[],
    developmentKey = join('data', 'key-encryption-key'),
  ) {
    const keys = kids.length === 1 ? `signing key ${kids[0]} does` : `signing keys ${kids.join(', ')} do`;
    super(
      `the ${keys} not decrypt with this KEY_ENCRYPTION_KEY: they were stored under another one (the development key ` +
        `${developmentKey}, if the service ran without KEY_ENCRYPTION_KEY before). Start with the key they were ` +
        'stored under, or stop every instance and re-encrypt them under this one: oauth-service keys rewrap ' +
        `--from-key-file ${developmentKey} (or --from-env OLD_KEY, the old key in OLD_KEY), with KEY_ENCRYPTION_KEY ` +
        'set to the new key (docs/operations.md, "Signing keys")',
    );
    this.name = 'SigningKeysUndecryptable';
  }
}

/** Throws SigningKeysUndecryptable unless every key that signs now or will sign decrypts with the key this server has. */
export async function requireDecryptableSigningKeys(deps: SigningKeyDeps & { config: Pick<Config, 'dataDir'> }): Promise<void> {
  const undecryptable: string[] = [];
  for (const key of keysThatSign(await deps.stores.signingKeys.list(), deps.now())) {
    try {
      await deps.stores.signingKeys.privateJwk(key.kid);
    } catch (error) {
      // Anything else (no KEY_ENCRYPTION_KEY at all, the database) is not this check's to explain.
      if (!(error instanceof PrivateKeyUndecryptable)) throw error;
      undecryptable.push(key.kid);
    }
  }
  if (undecryptable.length > 0) throw new SigningKeysUndecryptable(undecryptable, join(deps.config.dataDir, 'key-encryption-key'));
}
