import { configFileLine } from './config-file.js';
import { authorizationIssuer } from '../oauth/issuer.js';

/** What the banner `serve` prints once it listens says; gathered by serve.ts. */
export interface BannerFacts {
  baseUrl: string;
  address: string;
  database: string;
  /** The config file that was read (absolute), null for none. */
  configFile: string | null;
  adminConfigured: boolean;
  derivedBaseUrl: boolean;
  /** How the operator runs the CLI here: `oauth-service` in the image, `npm run cli --` in a checkout. */
  cli: string;
  openid: boolean;
  /** insecureIssuerWarning's text, or null. */
  insecureIssuer: string | null;
  applications: number;
  users: number;
}

/**
 * The banner. "Next steps" lists what is still to do, each once (issue 32: with seven applications it still told
 * the operator to create one at every start); what is done is one line of facts instead.
 */
export function startBanner(facts: BannerFacts): string {
  const { cli } = facts;
  // The addresses the server serves: BASE_URL with a trailing slash would print http://host//oauth/applications.
  const baseUrl = authorizationIssuer(facts.baseUrl);
  const steps = [
    ...(facts.applications === 0
      ? [`  create an application:  ${cli} apps create --name "My app" --redirect-uri https://app.example.com/callback`]
      : []),
    ...(facts.users === 0 ? [`  create a user:          ${cli} users create --username alice   (password read from stdin)`] : []),
    ...(facts.adminConfigured
      ? []
      : ['  admin UI:               set ADMIN_PASSWORD (or admin.passwordHash) and restart, then open /oauth/applications']),
  ];
  const lines = [
    '',
    `oauth-service is running at ${baseUrl} (listening on ${facts.address})`,
    ...(facts.derivedBaseUrl
      ? ['base URL: derived from the listening address; set BASE_URL to the public URL if clients reach it elsewhere']
      : []),
    ...(facts.insecureIssuer ? [`WARNING: ${facts.insecureIssuer}`] : []),
    configFileLine(facts.configFile),
    `database: ${facts.database}`,
    ...(facts.openid ? [`OpenID Provider: ${baseUrl}/.well-known/openid-configuration`] : []),
    ...(facts.adminConfigured ? [`admin UI: ${baseUrl}/oauth/applications`] : []),
    ...(facts.applications > 0 || facts.users > 0
      ? [`${plural(facts.applications, 'application')}, ${plural(facts.users, 'user')} (${cli} apps list, ${cli} users list)`]
      : []),
    ...(steps.length > 0 ? ['', 'Next steps:', ...steps] : []),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
