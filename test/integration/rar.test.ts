import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { CALLBACK, openIdServer } from '../helpers/openid.js';
import { basic, introspectRequest, postForm, tokenRequest } from '../helpers/oauth-requests.js';
import { createResource, ResourceInvalid } from '../../src/oauth/resources/resources.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Issue 36 item 4, RFC 9396 rich authorization requests, black-box over HTTP: a resource declares the types it serves
// (with a JSON Schema and a consent text), and authorization_details travel from the authorization request (query,
// PAR, request object) through the consent page into the code, the token response, the JWT access token and
// introspection; a token request narrows them, never widens them.

const BANK = 'https://bank.example.com/api';
const PAYMENT = {
  type: 'payment_initiation',
  instructedAmount: { currency: 'EUR', amount: '123.50' },
  creditorName: 'Merchant A',
  creditorAccount: { iban: 'DE02100100109307118603' },
};
const ACCOUNTS = { type: 'account_information', actions: ['list_accounts', 'read_balances'] };
const PAYMENT_SCHEMA = {
  type: 'object',
  required: ['instructedAmount', 'creditorName'],
  properties: {
    instructedAmount: {
      type: 'object',
      required: ['currency', 'amount'],
      properties: { currency: { type: 'string', pattern: '^[A-Z]{3}$' }, amount: { type: 'string' } },
    },
    creditorName: { type: 'string' },
  },
};
const TYPES = {
  payment_initiation: {
    schema: PAYMENT_SCHEMA,
    consent: {
      en: 'Pay {{instructedAmount.amount}} {{instructedAmount.currency}} to {{creditorName}}',
      de: '{{instructedAmount.amount}} {{instructedAmount.currency}} an {{creditorName}} zahlen',
    },
  },
  account_information: { schema: null, consent: null },
};
const details = (...objects: object[]) => JSON.stringify(objects);
const BANK_FIELDS = { uri: BANK, name: 'Bank', scopes: 'read', tokenFormat: 'jwt', accessTokenLifetime: '', serverClientId: '' };

describe(`rich authorization requests, RFC 9396 (${backend})`, () => {
  let server: TestServer;
  let client: Awaited<ReturnType<typeof createClient>>;
  let keyed: { uid: string; key: ClientKey };
  let agent: UserAgent;

  beforeAll(async () => {
    server = await openIdServer({
      config: {
        grantFlows: ['authorization_code', 'client_credentials', 'refresh_token'],
        introspection: { allow: [{ rule: 'tokenApplication' }] },
      },
    });
    // Through the domain the admin UI, the JSON API and the CLI share (cli-resources.test.ts drives the CLI's options).
    await createResource(server.deps, { ...BANK_FIELDS, authorizationDetailsTypes: JSON.stringify(TYPES) });
    client = await createClient(server.deps);
    const key = await clientKey('ES256');
    keyed = { uid: (await createClient(server.deps, { jwks: JSON.stringify(jwksOf(key)) })).application.uid, key };
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const credentials = () => basic(client.application.uid, client.plainSecret!);
  const codeRequest = (extra: Record<string, string>) => ({
    client_id: client.application.uid,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'read',
    state: 'st',
    ...extra,
  });
  const consentPage = (extra: Record<string, string>) => agent.request({ method: 'GET', url: authorizeUrl(codeRequest(extra)) });
  /** Approves the consent page and exchanges the code; the token response. */
  async function approvedTokens(page: Awaited<ReturnType<typeof consentPage>>) {
    expect(page.statusCode, page.body.slice(0, 400)).toBe(200);
    const redirect = await agent.post('/oauth/authorize', hiddenFields(page.body));
    const code = locationParameters(redirect).get('code');
    expect(code, String(redirect.headers.location)).toBeTruthy();
    return tokenRequest(server.app, { grant_type: 'authorization_code', code: code!, redirect_uri: CALLBACK }, credentials());
  }
  const errorOf = (page: Awaited<ReturnType<typeof consentPage>>) => {
    const location = locationParameters(page);
    return { error: location.get('error'), description: location.get('error_description') };
  };

  it('section 10: discovery names the types the resources serve', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.authorization_details_types_supported).toEqual(['account_information', 'payment_initiation']);
  });

  it('section 5: malformed JSON, not an array, an object without type, an unknown type, a schema failure: invalid_authorization_details', async () => {
    const cases: Array<[string, string]> = [
      ['[{"type":', 'authorization_details is not valid JSON.'],
      ['{"type":"payment_initiation"}', 'authorization_details must be a JSON array of objects.'],
      ['[{"creditorName":"A"}]', 'authorization_details[0] has no type.'],
      ['[]', 'authorization_details must name at least one object.'],
      // 12 kB of brackets: JSON.stringify of it overflowed the stack (a 500) when the consent page carried it on.
      [
        `[{"type":"account_information","x":${'['.repeat(6000)}${']'.repeat(6000)}}]`,
        'authorization_details is nested too deeply (at most 32 levels of objects and arrays).',
      ],
      [details(ACCOUNTS).replace(/\]$/, ',"payment_initiation"]'), 'authorization_details[1] is not a JSON object.'],
      ['[{"type":""}]', 'authorization_details[0] has a type that is not a non-empty string.'],
      ['[{"type":7}]', 'authorization_details[0] has a type that is not a non-empty string.'],
      [
        details({ ...ACCOUNTS, locations: 'https://api.example.com' }),
        'authorization_details[0] has locations that are not a non-empty array of strings.',
      ],
      [details({ ...ACCOUNTS, locations: [] }), 'authorization_details[0] has locations that are not a non-empty array of strings.'],
      [
        details(ACCOUNTS, { type: 'crypto_transfer' }),
        'authorization_details[1] has the type "crypto_transfer", which no resource here serves.',
      ],
      [
        details({ ...ACCOUNTS, locations: ['https://elsewhere.example.com'] }),
        'authorization_details[0] names the location https://elsewhere.example.com, which is no resource serving account_information.',
      ],
      [
        details({ ...PAYMENT, instructedAmount: { currency: 'euro', amount: '1' } }),
        'authorization_details[0] (payment_initiation) does not match its schema: /instructedAmount/currency must match pattern "^[A-Z]{3}$".',
      ],
    ];
    for (const [value, description] of cases) {
      const page = await consentPage({ authorization_details: value });
      expect(page.statusCode, value).toBe(302);
      expect(errorOf(page), value).toEqual({ error: 'invalid_authorization_details', description });
    }
  });

  it('section 4: the consent page says each object in words: the type’s text filled in, else its fields', async () => {
    const page = await consentPage({ authorization_details: details(PAYMENT, ACCOUNTS) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Pay 123.50 EUR to Merchant A');
    expect(page.body).toContain('<dt>actions</dt><dd>list_accounts, read_balances</dd>');
    // The text of the page's language (ui_locales), from the resource's per-language texts.
    const german = await consentPage({ authorization_details: details(PAYMENT), ui_locales: 'de' });
    expect(german.body).toContain('123.50 EUR an Merchant A zahlen');
  });

  it('a field is text on the page, never markup: the placeholders are filled in escaped', async () => {
    const page = await consentPage({ authorization_details: details({ ...PAYMENT, creditorName: '<script>alert(1)</script>' }) });
    expect(page.body).toContain('Pay 123.50 EUR to &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).not.toContain('<script>alert(1)');
  });

  it('sections 7 and 9: the token response, the JWT access token and introspection carry the details; the resource is the audience', async () => {
    const response = await approvedTokens(await consentPage({ authorization_details: details(PAYMENT, ACCOUNTS) }));
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.authorization_details).toEqual([PAYMENT, ACCOUNTS]);
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ aud: BANK, authorization_details: [PAYMENT, ACCOUNTS] });
    const introspected = (await introspectRequest(server.app, { token: body.access_token }, credentials())).json();
    expect(introspected).toMatchObject({ active: true, aud: BANK, authorization_details: [PAYMENT, ACCOUNTS] });
  });

  it('section 6.2: a refresh narrows to a granted object, and refuses one never granted or asked for twice', async () => {
    const granted = (await approvedTokens(await consentPage({ authorization_details: details(PAYMENT, ACCOUNTS), scope: 'read' }))).json();
    const refresh = (value: string) =>
      tokenRequest(
        server.app,
        { grant_type: 'refresh_token', refresh_token: granted.refresh_token, authorization_details: value },
        credentials(),
      );
    const widened = await refresh(details({ ...PAYMENT, instructedAmount: { currency: 'EUR', amount: '999.00' } }));
    expect(widened.statusCode).toBe(400);
    expect(widened.json()).toEqual({
      error: 'invalid_authorization_details',
      error_description:
        'authorization_details[0] (payment_initiation) was not granted: a token request may only ask for authorization_details granted before.',
    });
    // Each object is one authorization (section 2): a payment granted once cannot be asked for twice.
    const repeated = await refresh(details(PAYMENT, PAYMENT));
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json()).toEqual({
      error: 'invalid_authorization_details',
      error_description:
        'authorization_details[1] (payment_initiation) is asked for more often than it was granted: each object granted may be asked for once.',
    });
    const narrowed = await refresh(details(ACCOUNTS));
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    expect(narrowed.json().authorization_details).toEqual([ACCOUNTS]);
    expect(decodeJwt(narrowed.json().access_token).authorization_details).toEqual([ACCOUNTS]);
  });

  it('section 6.1: the code exchange may not widen either; and a request with details always asks the user (prompt=none: consent_required)', async () => {
    const page = await consentPage({ authorization_details: details(ACCOUNTS) });
    const redirect = await agent.post('/oauth/authorize', hiddenFields(page.body));
    const code = locationParameters(redirect).get('code')!;
    const widened = await tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, authorization_details: details(PAYMENT) },
      credentials(),
    );
    expect(widened.json()).toMatchObject({ error: 'invalid_authorization_details' });
    // The same authorization again, now that a token for it exists: still the consent page, never skipped.
    const silent = await consentPage({ authorization_details: details(ACCOUNTS), prompt: 'none' });
    expect(errorOf(silent).error).toBe('consent_required');
  });

  it('section 6: client_credentials takes authorization_details at the token request, validated the same way', async () => {
    const ask = (value: string) =>
      tokenRequest(server.app, { grant_type: 'client_credentials', scope: 'read', authorization_details: value }, credentials());
    const issued = await ask(details(ACCOUNTS));
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.json().authorization_details).toEqual([ACCOUNTS]);
    expect(decodeJwt(issued.json().access_token)).toMatchObject({ aud: BANK, authorization_details: [ACCOUNTS] });
    const refused = await ask(details({ type: 'payment_initiation', creditorName: 'B' }));
    expect(refused.json()).toEqual({
      error: 'invalid_authorization_details',
      error_description:
        "authorization_details[0] (payment_initiation) does not match its schema: must have required property 'instructedAmount'.",
    });
  });

  it('RFC 9126: pushed authorization_details go through the same validation and reach the consent page and the token', async () => {
    const push = (value: string) =>
      postForm(
        server.app,
        '/oauth/par',
        { ...codeRequest({ authorization_details: value }), client_id: client.application.uid },
        credentials(),
      );
    const refused = await push('[{"type":"crypto_transfer"}]');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('invalid_authorization_details');
    const pushed = await push(details(PAYMENT));
    expect(pushed.statusCode, pushed.body).toBe(201);
    const page = await agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.application.uid, request_uri: pushed.json().request_uri }),
    });
    expect(page.body).toContain('Pay 123.50 EUR to Merchant A');
    expect((await approvedTokens(page)).json().authorization_details).toEqual([PAYMENT]);
  });

  it('RFC 9101: a request object carries authorization_details as a JSON array', async () => {
    const now = Math.floor(Date.now() / 1000);
    const request = await new SignJWT({
      iss: keyed.uid,
      aud: server.config.baseUrl.replace(/\/+$/, ''),
      exp: now + 300,
      nbf: now,
      client_id: keyed.uid,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'read',
      authorization_details: [PAYMENT],
    })
      .setProtectedHeader({ alg: keyed.key.alg, kid: keyed.key.kid, typ: 'oauth-authz-req+jwt' })
      .sign(keyed.key.privateKey);
    const page = await agent.request({ method: 'GET', url: authorizeUrl({ client_id: keyed.uid, request }) });
    expect(page.statusCode, page.body.slice(0, 400)).toBe(200);
    expect(page.body).toContain('Pay 123.50 EUR to Merchant A');
  });

  it('a declaration that is not JSON, not of the declaration’s shape, or whose schema is no schema is refused in words', async () => {
    const cases: Array<[string, string]> = [
      ['{"transfer":', 'Authorization details types is not valid JSON:'],
      [
        '{"transfer": {"template": "x"}}',
        'Authorization details types must be a JSON object of types, each {"schema": ..., "consent": ...}:',
      ],
      ['{"transfer": {"schema": {"type": "no-such-type"}}}', 'The JSON Schema of transfer is not a valid schema:'],
    ];
    for (const [declaration, message] of cases) {
      const refused = await createResource(server.deps, {
        ...BANK_FIELDS,
        uri: 'https://other.example.com',
        authorizationDetailsTypes: declaration,
      }).catch((error: unknown) => error);
      expect(refused, declaration).toBeInstanceOf(ResourceInvalid);
      expect((refused as ResourceInvalid).fieldErrors.authorization_details_types?.[0], declaration).toContain(message);
    }
  });
});
