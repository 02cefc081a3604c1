import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { ensureSigningKeys, type SigningKeyDeps } from './signing-key-service.js';
import { activeSigningKey, type SigningAlgorithm, type SigningKeyRecord } from './signing-keys.js';

// Signs JWTs (ID tokens next, JWT access tokens later) with the key the lifecycle says signs now, through jose.
// The key list is read at most every few seconds and each private key decrypted once per process: a retired key
// stops being used within LIST_TTL_MS everywhere (and leaves the JWKS at once).

const LIST_TTL_MS = 5_000;

export interface TokenSigner {
  /** A compact JWS of `payload`, signed by the active key of `alg` (RS256 by default), its kid in the header. */
  sign(payload: JWTPayload, options?: { alg?: SigningAlgorithm; typ?: string }): Promise<string>;
}

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;

export function createTokenSigner(deps: SigningKeyDeps): TokenSigner {
  let listed: { keys: SigningKeyRecord[]; at: number } | null = null;
  const privateKeys = new Map<string, Promise<PrivateKey>>();

  const keys = async (): Promise<SigningKeyRecord[]> => {
    const now = Date.now();
    if (!listed || now - listed.at > LIST_TTL_MS) listed = { keys: await deps.stores.signingKeys.list(), at: now };
    return listed.keys;
  };
  const activeKey = async (alg: SigningAlgorithm): Promise<SigningKeyRecord> => {
    const key = activeSigningKey(await keys(), alg, deps.now());
    if (key) return key;
    // No key of this algorithm signs yet (first use, or the last one was retired): make one, under the lock.
    await ensureSigningKeys(deps, [alg]);
    listed = null;
    const made = activeSigningKey(await keys(), alg, deps.now());
    if (!made) throw new Error(`no ${alg} signing key could be made`);
    return made;
  };
  const privateKey = (key: SigningKeyRecord): Promise<PrivateKey> => {
    let imported = privateKeys.get(key.kid);
    if (!imported) {
      imported = deps.stores.signingKeys.privateJwk(key.kid).then((jwk) => {
        if (!jwk) throw new Error(`signing key ${key.kid} is gone`);
        return importJWK(jwk, key.alg);
      });
      imported.catch(() => privateKeys.delete(key.kid));
      privateKeys.set(key.kid, imported);
    }
    return imported;
  };

  return {
    async sign(payload, { alg = 'RS256', typ = 'JWT' } = {}) {
      const key = await activeKey(alg);
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ }).sign(await privateKey(key));
    },
  };
}
