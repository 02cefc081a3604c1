// C0 controls, DEL and C1 controls: no part of a name, an identifier or a URI a person reads (a bell, an escape
// sequence that rewrites a terminal, a line break inside a table's row).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex
const EVERY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/gu;

export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);

/** The text with each control character written as \uXXXX: what a terminal shows rather than obeys. */
export const withControlCharactersEscaped = (text: string): string =>
  text.replace(EVERY_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
