import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { ensureSigningKeys, type SigningKeyDeps } from './signing-key-service.js';
import { activeSigningKey, type SigningAlgorithm, type SigningKeyRecord } from './signing-keys.js';

// Signs JWTs (ID tokens, signed UserInfo, JWT access tokens) with the key the lifecycle says signs now, through jose.
// The key list is read at most every few seconds (of the deps' clock) and each private key decrypted once per
// process: a retired key stops being used, and what it signed stops being accepted, within LIST_TTL_MS everywhere
// (and leaves the JWKS at once).

const LIST_TTL_MS = 5_000;

export interface TokenSigner {
  /** A compact JWS of `payload`, signed by the active key of `alg` (RS256 by default), its kid in the header. */
  sign(payload: JWTPayload, options?: { alg?: SigningAlgorithm; typ?: string }): Promise<string>;
  /** Whether `kid` names a retired key (`keys retire`), as this process last read the keys (at most LIST_TTL_MS ago). */
  isRetired(kid: string): Promise<boolean>;
}

type PrivateKey = Awaited<ReturnType<typeof importJWK>>;

export function createTokenSigner(deps: SigningKeyDeps): TokenSigner {
  // One read shared by the requests that find the list stale at once; a failed read is not kept.
  let listed: { keys: Promise<SigningKeyRecord[]>; at: number } | null = null;
  const privateKeys = new Map<string, Promise<PrivateKey>>();

  const keys = (): Promise<SigningKeyRecord[]> => {
    const now = deps.now().getTime();
    if (!listed || now - listed.at > LIST_TTL_MS || now < listed.at) {
      const read = { keys: deps.stores.signingKeys.list(), at: now };
      read.keys.catch(() => {
        if (listed === read) listed = null;
      });
      listed = read;
    }
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
    async isRetired(kid) {
      return (await keys()).some((key) => key.kid === kid && key.retiredAt !== null);
    },
  };
}
