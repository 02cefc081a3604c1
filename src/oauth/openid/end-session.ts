import type { OAuthDeps } from '../deps.js';
import { buildRedirectUrl } from '../authorization/redirect-uri.js';
import { InvalidRequest } from '../errors.js';
import { verifyIdTokenHint, type IdTokenHint } from './id-token-hint.js';
import type { ApplicationRecord } from '../store.js';

// OpenID Connect RP-Initiated Logout 1.0 section 2: who asks to end the session, and where the user may be sent
// afterwards. A post_logout_redirect_uri is followed only when it is registered, exactly, for the client the
// id_token_hint or client_id names (section 3); anything else is an error shown on this server, never a redirect.

export interface EndSessionParameters {
  id_token_hint?: string;
  post_logout_redirect_uri?: string;
  state?: string;
  client_id?: string;
}

export interface EndSession {
  /** The verified hint, when one was sent: whose session the relying party means. */
  hint: IdTokenHint | null;
  application: ApplicationRecord | null;
  /** Where to send the user after logout (with state), or null: the server's own page. */
  redirectTo: string | null;
}

/** Throws InvalidRequest with a precise description when the request cannot be honoured as sent. */
export async function checkEndSession(deps: OAuthDeps, parameters: EndSessionParameters): Promise<EndSession> {
  const hintValue = nonBlank(parameters.id_token_hint);
  const hint = hintValue === null ? null : await verifyIdTokenHint(deps, hintValue);
  if (hintValue !== null && hint === null) throw new InvalidRequest('The id_token_hint is not an ID token issued by this server.');
  const clientId = nonBlank(parameters.client_id);
  if (hint && clientId !== null && clientId !== hint.clientId) {
    throw new InvalidRequest('The client_id is not the client the id_token_hint was issued to.');
  }
  const uid = hint?.clientId ?? clientId;
  const application = uid === null ? null : await deps.stores.applications.findByUid(uid);
  // A hint of a client deleted since still says whose session it is: the logout goes on, only without a redirect.
  if (clientId !== null && application === null) throw new InvalidRequest('The client_id names no application.');
  const redirectUri = nonBlank(parameters.post_logout_redirect_uri);
  if (redirectUri === null) return { hint, application, redirectTo: null };
  if (application === null) {
    throw new InvalidRequest(
      hint === null
        ? 'A post_logout_redirect_uri needs an id_token_hint or a client_id.'
        : 'The application the id_token_hint was issued to no longer exists: no post_logout_redirect_uri of it can be followed.',
    );
  }
  if (!application.postLogoutRedirectUris.includes(redirectUri)) {
    throw new InvalidRequest('The post_logout_redirect_uri is not registered for this application.');
  }
  // Section 3: without an id_token_hint, the redirection needs "other means of confirming" the URI: an admin registered
  // it. A client that registered itself (anyone, RFC 7591) is followed only with its hint, else anyone could make this
  // server redirect to a host of their choosing; the user is signed out all the same, and stays here.
  if (hint === null && application.registeredBy !== 'admin') return { hint, application, redirectTo: null };
  return { hint, application, redirectTo: withState(redirectUri, nonBlank(parameters.state)) };
}

// As an authorization response's: the registered query is kept byte for byte, and a registered state is replaced.
function withState(uri: string, state: string | null): string {
  return state === null ? uri : buildRedirectUrl(uri, { state }, 'query');
}

function nonBlank(value: string | undefined): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
