/** An instant as the end-user pages show it: readable UTC text, and the ISO form for a <time datetime>. */
export function pageTime(date: Date): { text: string; iso: string } {
  const iso = date.toISOString();
  return { text: `${iso.slice(0, 19).replace('T', ' ')} UTC`, iso };
}
