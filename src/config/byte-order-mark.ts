/**
 * A JSON file's text without the byte order mark some editors (Windows ones) save UTF-8 with: it is not part of the
 * text, and JSON.parse takes it for an unexpected token.
 */
export const withoutByteOrderMark = (text: string): string => text.replace(/^\uFEFF/, '');
