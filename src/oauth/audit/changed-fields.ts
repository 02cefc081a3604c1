// What an `*.updated` event says was changed: the names of the fields, never their values.

/** The fields of a form's submission whose value differs from the stored one (a field left out changes nothing). */
export function changedFormFields(before: object, after: object): string[] {
  const previous = before as Record<string, unknown>;
  return Object.entries(after)
    .filter(([key, value]) => value !== undefined && value !== previous[key])
    .map(([key]) => key);
}

/** The record fields whose desired value differs from the stored one, by their names in a provisioning file (snake_case). */
export function changedRecordFields<Desired extends object>(desired: Desired, current: { [Key in keyof Desired]?: unknown }): string[] {
  return (Object.keys(desired) as Array<keyof Desired & string>)
    .filter((key) => JSON.stringify(desired[key]) !== JSON.stringify(current[key]))
    .map((key) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
}
