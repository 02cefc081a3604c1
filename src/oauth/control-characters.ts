// C0 controls, DEL and C1 controls: no part of a name, an identifier or a URI a person reads (a bell, an escape
// sequence that rewrites a terminal, a line break inside a table's row).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);
