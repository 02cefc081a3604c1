// @simplewebauthn/server with its ASN.1, X.509 and CBOR dependencies is ~290 modules, the largest package the service
// imports (~0.35 s on Node.js 20, 0.15-0.3 s on 24): loaded on the first passkey ceremony, not at every start of the
// service and of every instance (bench/RESULTS.md "The service's start"). Node.js loads it once; later calls resolve
// to the same module.
export const webauthnLibrary = () => import('@simplewebauthn/server');
