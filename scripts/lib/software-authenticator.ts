import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// A WebAuthn authenticator in software (issue 35 item 1): it makes a P-256 passkey (or, on a Node.js that has it, an
// ML-DSA-44 one) with attestation "none" and signs assertions, so the integration tests (and bench/passkey-ceremony.ts)
// drive the server's real ceremonies, and can lie (another origin, another rp id, an old counter) where a browser would
// not.

type Cbor = number | string | Buffer | Cbor[] | Map<Cbor, Cbor>;

/** RFC 8949 in the few shapes WebAuthn needs: integers, text, bytes, arrays and maps (keys in insertion order). */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    const buffer = Buffer.alloc(3);
    buffer.writeUInt8((major << 5) | 25);
    buffer.writeUInt16BE(length, 1);
    return buffer;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer) => data.toString('base64url');

// Authenticator data flags (WebAuthn Level 3 section 6.1): user present, user verified, backup eligible and state, attested data.
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

export interface Ceremony {
  /** The origin the "browser" puts in clientDataJSON. */
  origin: string;
  /** The rp id whose hash the authenticator puts in its data. */
  rpId: string;
}

type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };
// @types/node 20 names no ML-DSA key type.
const generateKeyPairOf = generateKeyPairSync as (type: string) => KeyPair;

/** Whether this Node.js makes ML-DSA keys (24.7 and later; Node.js 20 does not). */
export function runtimeMakesMlDsaKeys(): boolean {
  try {
    generateKeyPairOf('ml-dsa-44');
    return true;
  } catch {
    return false;
  }
}

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly keys: KeyPair;
  /** The signature counter the next assertion carries, unless one is given. */
  counter = 0;
  userHandle: string | null = null;

  /**
   * `synced`: a backed-up multi-device passkey (BE and BS set); else device-bound. `countsSignatures`: counter > 0.
   * `verifiesUser: false`: assertions say the user was present but not verified (a security key without a PIN).
   * `algorithm`: the key's, ES256 unless said (ML-DSA-44 needs a Node.js whose crypto has it: 24.7 and later).
   */
  constructor(
    private readonly options: {
      synced?: boolean;
      countsSignatures?: boolean;
      verifiesUser?: boolean;
      algorithm?: 'ES256' | 'ML-DSA-44';
    } = {},
  ) {
    this.keys = options.algorithm === 'ML-DSA-44' ? generateKeyPairOf('ml-dsa-44') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private flags(extra: number, verified = true): number {
    return UP | (verified ? UV : 0) | extra | (this.options.synced ? BE | BS : 0);
  }

  private authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** The public key as COSE (RFC 9052 section 7) encodes it, which the server stores. */
  coseKey(): Buffer {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const key =
      this.options.algorithm === 'ML-DSA-44'
        ? new Map<Cbor, Cbor>([
            [1, 7], // kty: AKP
            [3, -48], // alg: ML-DSA-44
            [-1, Buffer.from((jwk as { pub: string }).pub, 'base64url')],
          ])
        : new Map<Cbor, Cbor>([
            [1, 2], // kty: EC2
            [3, -7], // alg: ES256
            [-1, 1], // crv: P-256
            [-2, Buffer.from(jwk.x!, 'base64url')],
            [-3, Buffer.from(jwk.y!, 'base64url')],
          ]);
    return cbor(key);
  }

  /** navigator.credentials.create() answering the server's options. */
  register(options: { challenge: string; user: { id: string } }, ceremony: Ceremony) {
    this.userHandle = options.user.id;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const authData = this.authenticatorData(ceremony.rpId, this.flags(AT), 0, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientData = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: ceremony.origin,
      crossOrigin: false,
    });
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(Buffer.from(clientData)), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get() answering the server's options; the counter moves on unless `counter` is given. */
  assert(options: { challenge: string }, ceremony: Ceremony, counter?: number) {
    if (this.options.countsSignatures && counter === undefined) this.counter += 1;
    const authData = this.authenticatorData(ceremony.rpId, this.flags(0, this.options.verifiesUser ?? true), counter ?? this.counter);
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: ceremony.origin, crossOrigin: false }),
    );
    const signed = Buffer.concat([authData, sha256(clientData)]);
    // ML-DSA hashes inside the algorithm: no digest is named.
    const signature = sign(this.options.algorithm === 'ML-DSA-44' ? null : 'sha256', signed, this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle !== null && { userHandle: this.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
