import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE_LOCALES } from '../../src/config/page-locales.js';
import { createMessageCatalog, LOCALES_DIR, readMessages, type Messages } from '../../src/http/i18n/message-catalog.js';
import { DISABLED_CLIENT_DESCRIPTION } from '../../src/oauth/authorization/authorization-rules.js';
import {
  InvalidClient,
  InvalidRedirectUri,
  InvalidRequest,
  InvalidScope,
  ServerError,
  TemporarilyUnavailable,
  UnauthorizedClient,
  UnsupportedResponseType,
} from '../../src/oauth/errors.js';

// Issue 35 item 6: a missing key in a locale fails a test. Every file must say everything en.json says, nothing more,
// never with an empty text, and with the same {{placeholders}} (a translation without {{username}} would hide whose
// session it is).

/** Every message as "group.key" -> text. */
function flatten(messages: Messages, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const path = `${prefix}${key}`;
    if (typeof value === 'string') flat.set(path, value);
    else for (const [inner, text] of flatten(value, `${path}.`)) flat.set(inner, text);
  }
  return flat;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).sort();

const english = flatten(readMessages('en'));

describe('locales/*.json: the messages of the end-user pages', () => {
  it('holds one file per supported locale (PAGE_LOCALES), and no other', () => {
    const files = readdirSync(LOCALES_DIR).filter((name) => name.endsWith('.json'));
    expect(files.sort()).toEqual(PAGE_LOCALES.map((locale) => `${locale}.json`).sort());
  });

  // An error page finds the translation of a description by its English text: one changed in errors.ts alone would
  // silently stay English on every page.
  it("en.json's oauthErrors are, word for word, the descriptions errors.ts and the disabled client's rule send", () => {
    expect(readMessages('en').oauthErrors).toEqual({
      invalid_client: new InvalidClient().description,
      disabled_client: DISABLED_CLIENT_DESCRIPTION,
      invalid_redirect_uri: new InvalidRedirectUri().description,
      invalid_request: new InvalidRequest().description,
      unauthorized_client: new UnauthorizedClient().description,
      unsupported_response_type: new UnsupportedResponseType().description,
      invalid_scope: new InvalidScope().description,
      server_error: new ServerError().description,
      temporarily_unavailable: new TemporarilyUnavailable().description,
    });
  });

  it('en.json has no empty text', () => {
    expect([...english].filter(([, text]) => text.trim() === '').map(([key]) => key)).toEqual([]);
  });

  for (const locale of PAGE_LOCALES.filter((name) => name !== 'en')) {
    describe(`${locale}.json`, () => {
      const messages = flatten(readMessages(locale));

      it('has every key of en.json', () => {
        expect([...english.keys()].filter((key) => !messages.has(key))).toEqual([]);
      });

      it('has no key en.json lacks', () => {
        expect([...messages.keys()].filter((key) => !english.has(key))).toEqual([]);
      });

      it('has no empty text', () => {
        expect([...messages].filter(([, text]) => text.trim() === '').map(([key]) => key)).toEqual([]);
      });

      it("uses exactly en.json's placeholders in each text", () => {
        const differing = [...messages].filter(
          ([key, text]) => english.has(key) && `${placeholders(text)}` !== `${placeholders(english.get(key)!)}`,
        );
        expect(differing.map(([key]) => key)).toEqual([]);
      });
    });
  }
});

describe('the wording of the messages', () => {
  const catalog = createMessageCatalog();
  const inLocale = (locale: string) => catalog.getFixedT(locale);

  it('login.lockedOut and device.lockedOut say "1 second" in the singular (i18next plurals)', () => {
    const singular: Record<string, [string, string]> = {
      en: ['Try again in 1 second.', 'Try again in 179 seconds.'],
      de: ['in 1 Sekunde erneut', 'in 179 Sekunden erneut'],
      fr: ['dans 1 seconde.', 'dans 179 secondes.'],
      es: ['dentro de 1 segundo.', 'dentro de 179 segundos.'],
      ja: ['1 秒後に', '179 秒後に'],
    };
    for (const [locale, [one, many]] of Object.entries(singular)) {
      for (const key of ['login.lockedOut', 'device.lockedOut']) {
        expect(inLocale(locale)(key, { seconds: 1 }), `${locale} ${key}`).toContain(one);
        expect(inLocale(locale)(key, { seconds: 179 }), `${locale} ${key}`).toContain(many);
      }
    }
  });

  it('French uses the typographic apostrophe throughout', () => {
    expect([...flatten(readMessages('fr'))].filter(([, text]) => text.includes("'")).map(([key]) => key)).toEqual([]);
  });

  it('French puts a no-break space before : ? ; and !, so that the mark never starts a line of its own', () => {
    expect([...flatten(readMessages('fr'))].filter(([, text]) => / [:?;!]/.test(text)).map(([key]) => key)).toEqual([]);
  });

  it('Japanese says サインイン, never ログイン', () => {
    expect([...flatten(readMessages('ja'))].filter(([, text]) => text.includes('ログイン')).map(([key]) => key)).toEqual([]);
  });
});
