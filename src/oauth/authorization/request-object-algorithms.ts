// Apart from request-object.ts, which needs jose: registration checks a client's request_object_signing_alg against
// this list, and the CLI commands that register clients must not load jose (test/unit/cli-module-graph).

/** The asymmetric algorithms a request object may be signed with (those of private_key_jwt). */
export const REQUEST_OBJECT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'];
