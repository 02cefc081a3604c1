import { registrationErrors } from '../authorization/redirect-uri.js';
import { withControlCharactersEscaped } from '../control-characters.js';

// An admin-made application's redirect URIs (reference 7.1; the admin form, JSON API, CLI and apply): each under the
// registration rules, a new one at most MAX_REDIRECT_URI_LENGTH characters.

// A redirect URI is sent back in every authorization response; resource URIs stop at the same length.
const MAX_REDIRECT_URI_LENGTH = 2000;

// A URI quoted in a message: its control characters escaped, a long one cut.
const uriShown = (uri: string): string => {
  const shown = withControlCharactersEscaped(uri);
  return shown.length > 100 ? `${shown.slice(0, 100)}...` : shown;
};

/**
 * The problems of `uris`; `stored`, those the application has already, which were accepted under the rules of their
 * day and stay valid. Of a list, each message names its URI (as registration's do): the admin finds the line to mend.
 */
export function redirectUriProblems(uris: string[], forceSsl: boolean, stored: readonly string[]): string[] {
  return uris.flatMap((uri) => {
    const options = { forceSsl, stored: stored.includes(uri) };
    const problems = registrationErrors(uri, options);
    if (!options.stored && uri.length > MAX_REDIRECT_URI_LENGTH)
      problems.unshift(`Redirect URI is too long (maximum is ${MAX_REDIRECT_URI_LENGTH} characters)`);
    return problems.map((message) => (uris.length > 1 ? `${uriShown(uri)}: ${message}` : message));
  });
}
