import type { Config, IntrospectionRuleConfig } from '../../config/types.js';
import type { OAuthHooks } from '../hooks.js';
import type { AccessTokenRecord, ApplicationRecord } from '../store.js';

/** Who asks: exactly one of a client (HTTP Basic) or a bearer token (seed, Authentication 1). */
export interface IntrospectionRequester {
  client: ApplicationRecord | null;
  bearer: AccessTokenRecord | null;
  /** The resources (URIs) whose server the client is (the audience rule); read only when that rule may decide. */
  servedResources?: readonly string[];
}

/** One named rule of the declarative policy (STYLE 7). */
export interface IntrospectionRule {
  name: IntrospectionRuleConfig['rule'];
  allows(token: AccessTokenRecord | null, requester: IntrospectionRequester): boolean;
}

type RuleFactory<R extends IntrospectionRuleConfig> = (config: R) => IntrospectionRule['allows'];

// The seed's three default rules, and two more for resource servers that introspect every token.
const RULES: { [K in IntrospectionRuleConfig['rule']]: RuleFactory<Extract<IntrospectionRuleConfig, { rule: K }>> } = {
  // Seed rule 1; compared nil-safe like the reference, so an unknown token is compared with nothing (10.2).
  sameApplication:
    () =>
    (token, { bearer }) =>
      bearer !== null && bearer.applicationId === (token?.applicationId ?? null),
  // Seed rule 2.
  tokenApplication:
    () =>
    (token, { client }) =>
      client !== null && token?.applicationId != null && token.applicationId === client.id,
  // Seed rule 3 (a token not found is allowed too: it is reported inactive anyway).
  publicToken:
    () =>
    (token, { client }) =>
      client !== null && (token === null || token.applicationId === null),
  // RFC 8707: the API a token is meant for may ask about it, when a resource of the audience names it its server.
  audience:
    () =>
    (token, { client, servedResources = [] }) =>
      client !== null && token !== null && token.audience.some((uri) => servedResources.includes(uri)),
  clients:
    ({ clientIds }) =>
    (_token, { client }) =>
      client !== null && clientIds.includes(client.uid),
  bearerScope:
    ({ scope }) =>
    (_token, { bearer }) =>
      bearer !== null && bearer.scopes.includes(scope),
};

/** The OR of config `introspection.allow`, as a table of named rules. */
export function introspectionRules(allow: readonly IntrospectionRuleConfig[]): IntrospectionRule[] {
  return allow.map((config) => ({
    name: config.rule,
    allows: (RULES[config.rule] as RuleFactory<IntrospectionRuleConfig>)(config),
  }));
}

/**
 * The policy of a set of dependencies: the rules built with them (OAuthDeps.introspectionRules, in app.ts), or
 * for dependencies assembled without them, the rules of their config.
 */
export function introspectionPolicyOf(deps: {
  config: Readonly<Config>;
  introspectionRules?: IntrospectionRule[] | undefined;
}): IntrospectionRule[] {
  return deps.introspectionRules ?? introspectionRules(deps.config.introspection.allow);
}

/**
 * Whether the requester may introspect the token. The programmatic allowTokenIntrospection hook, when
 * supplied, replaces the declarative rules (SPEC 5); a nil or false result rejects.
 */
export async function mayIntrospect(
  hooks: OAuthHooks,
  rules: IntrospectionRule[],
  token: AccessTokenRecord | null,
  requester: IntrospectionRequester,
): Promise<boolean> {
  const hook = hooks.allowTokenIntrospection;
  if (hook) return Boolean(await hook(token, requester.client, requester.bearer));
  return rules.some((rule) => rule.allows(token, requester));
}
