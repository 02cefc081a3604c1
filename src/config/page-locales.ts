// The languages of the end-user pages (issue 35 item 6): one JSON message file each in locales/, a test keeps the
// two lists equal. Here, not in http/, because the config names them (defaultLocale, per-locale scope texts).

export const PAGE_LOCALES = ['en', 'de', 'fr', 'es', 'ja'] as const;
export type PageLocale = (typeof PAGE_LOCALES)[number];

/** A text the pages show from the config: one string for every language, or one per language. */
export type LocalizedText = string | Partial<Record<PageLocale, string>>;

/**
 * The JSON Schema of a LocalizedText. One schema, not oneOf: the object keywords apply to objects only, so a wrong
 * language is reported as that alone, not also as "must be string".
 */
export const localizedTextSchema = {
  type: ['string', 'object'],
  propertyNames: { enum: [...PAGE_LOCALES] },
  additionalProperties: { type: 'string' },
  minProperties: 1,
} as const;
