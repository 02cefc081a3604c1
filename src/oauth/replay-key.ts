import { sha256Hex } from './secrets.js';

/**
 * The key under which a token's jti is recorded once in the replay table (oauth_dpop_proofs, whose primary key is
 * the check): its issuer's jti, hashed under a namespace of its own, so that no two kinds of token (a jwt-bearer
 * assertion, an upstream's logout token) and no two issuers share a key, and none is a DPoP proof's (the hash of a
 * thumbprint and a jti, never of a namespace).
 */
export const replayKey = (namespace: string, issuer: string, jti: string): string => sha256Hex(`${namespace}\n${issuer}\n${jti}`);
