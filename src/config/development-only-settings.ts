import type { Config } from './types.js';

// Settings that let this server connect to its own network (loopback, private and link-local addresses) on behalf of
// clients nobody vetted, for development against local servers. In production (NODE_ENV=production) a
// self-registered client could use them to aim back-channel logout POSTs or sector_identifier_uri and Client ID
// Metadata Document fetches at internal services (server-side request forgery), so the boot refuses them there, as
// it refuses to run OpenID Connect without KEY_ENCRYPTION_KEY.

/** Why the config holds a development-only setting while NODE_ENV is production; empty otherwise. */
export function developmentOnlyProblems(config: Config, env: Record<string, string | undefined>): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (config.openid.backchannelLogout.privateAddresses === 'all')
    problems.push(
      'openid.backchannelLogout.privateAddresses: "all" is for development only (NODE_ENV is production): a self-registered client could aim logout POSTs at internal addresses; use "adminClients" (the default) or "none"',
    );
  if (config.registration.clientIdMetadataDocuments.allowPrivateAddresses)
    problems.push(
      'registration.clientIdMetadataDocuments.allowPrivateAddresses: true is for development only (NODE_ENV is production): a client could make this server fetch its metadata document or sector_identifier_uri from internal addresses; set it to false',
    );
  return problems;
}
