// The WebAuthn JSON as the browser's PublicKeyCredential.toJSON() (and @simplewebauthn/browser) sends it: the fields
// the server reads are required strings of bounded size; the library checks their contents.
const b64url = (description: string, maxLength = 16384) =>
  ({ type: 'string', pattern: '^[A-Za-z0-9_-]*$', maxLength, description }) as const;
const credentialFields = {
  id: b64url('The credential id.', 1024),
  rawId: b64url('The credential id again.', 1024),
  type: { type: 'string', const: 'public-key', description: 'Always public-key.' },
  clientExtensionResults: { type: 'object', description: 'Client extension outputs.' },
  authenticatorAttachment: { type: 'string', maxLength: 32, description: 'platform or cross-platform.' },
} as const;
const credential = (response: object, description: string) =>
  ({ type: 'object', required: ['id', 'rawId', 'type', 'response'], properties: { ...credentialFields, response }, description }) as const;

export const registrationBody = {
  type: 'object',
  required: ['name', 'response'],
  properties: {
    name: { type: 'string', maxLength: 256, description: 'The name the user gives the passkey.' },
    response: credential(
      {
        type: 'object',
        required: ['clientDataJSON', 'attestationObject'],
        properties: {
          clientDataJSON: b64url('The client data.'),
          attestationObject: b64url('The attestation object.'),
          transports: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 }, description: 'The transports.' },
        },
      },
      'The new credential (navigator.credentials.create()).',
    ),
  },
} as const;
export const signInBody = {
  type: 'object',
  required: ['response'],
  properties: {
    response: credential(
      {
        type: 'object',
        required: ['clientDataJSON', 'authenticatorData', 'signature'],
        properties: {
          clientDataJSON: b64url('The client data.'),
          authenticatorData: b64url('The authenticator data.'),
          // Room for the longest a stored passkey makes: ML-DSA-87's 4,627 bytes (ML-DSA-44's 2,420: PASSKEY_ALGORITHMS).
          signature: b64url('The signature.', 8192),
          userHandle: b64url('The user handle.', 1024),
        },
      },
      'The assertion (navigator.credentials.get()).',
    ),
  },
} as const;
export const registrationOptionsBody = {
  type: 'object',
  properties: {
    current: {
      type: 'string',
      maxLength: 1024,
      description: 'The current password; empty or absent: a sign-in of the last few minutes proves the user instead.',
    },
  },
  description: 'The proof of the user (the CSRF token is in the x-csrf-token header).',
} as const;
export const emptyBody = { type: 'object', description: 'Nothing: the CSRF token is in the x-csrf-token header.' } as const;
