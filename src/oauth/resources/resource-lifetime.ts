// The bounds of a resource's access_token_lifetime (seconds), in a module of their own: the signing keys' lifecycle
// and the token issuer need the longest a resource may set, without the validation's imports.
export const MIN_LIFETIME = 60;
export const MAX_LIFETIME = 86_400;
