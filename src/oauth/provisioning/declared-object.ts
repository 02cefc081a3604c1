// One object of a provisioning file as JSON gave it, read member by member: a member of the wrong type, a missing
// one or one the file must not have (a misspelling, never silently dropped) becomes a problem named by its path in
// the file (`applications[2].redirect_uris[0]: ...`), and every problem of the file is reported at once.

import { shownJson } from '../json-nesting.js';

/** Problems of a file, each `path: message`. */
export type Problems = string[];

type Json = Record<string, unknown>;

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

export class DeclaredObject {
  private constructor(
    readonly path: string,
    private readonly members: Json,
    private readonly problems: Problems,
  ) {}

  /** The object at `path`, or null (a problem) when it is not one; members outside `allowed` are problems. */
  static read(value: unknown, path: string, allowed: readonly string[], problems: Problems): DeclaredObject | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${path}: must be an object, not ${describe(value)}`);
      return null;
    }
    const object = new DeclaredObject(path, value as Json, problems);
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) object.problem(key, `unknown field (the fields are ${allowed.join(', ')})`);
    }
    return object;
  }

  /** A member's path: `applications[2].name`, or just the member's name at the top of the file (path ''). */
  pathOf(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  problem(key: string, message: string): void {
    this.problems.push(`${this.pathOf(key)}: ${message}`);
  }

  /** The member as JSON gave it, for a reader of its own (the top of the file reads its arrays so). */
  raw(key: string): unknown {
    return this.members[key];
  }

  /** A string member; a missing required one is a problem (undefined), a missing optional one undefined. */
  string(key: string, { required = false } = {}): string | undefined {
    const value = this.members[key];
    if (value === undefined) {
      if (required) this.problem(key, 'is required');
      return undefined;
    }
    if (typeof value === 'string') return value;
    this.problem(key, `must be a string, not ${describe(value)}`);
    return undefined;
  }

  /** A string or null (an explicit "none"); undefined when absent or wrong. */
  nullableString(key: string): string | null | undefined {
    return this.members[key] === null ? null : this.string(key);
  }

  boolean(key: string): boolean | undefined {
    const value = this.members[key];
    if (value === undefined || typeof value === 'boolean') return value;
    this.problem(key, `must be true or false, not ${describe(value)}`);
    return undefined;
  }

  /** A whole number from min to max, or null; undefined when absent or wrong. */
  integer(key: string, min: number, max: number): number | null | undefined {
    const value = this.members[key];
    if (value === undefined || value === null) return value;
    const whole = typeof value === 'number' && Number.isInteger(value);
    if (whole && value >= min && value <= max) return value;
    // The range only where it is the problem: a string "900" is the wrong type, whatever the range.
    this.problem(key, `must be a whole number${whole ? ` from ${min} to ${max}` : ''}, not ${shownJson(value)}`);
    return undefined;
  }

  /** An array of strings; each wrong element is a problem of its own (`key[i]`). Undefined when absent or wrong. */
  strings(key: string): string[] | undefined {
    const value = this.members[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.problem(key, `must be an array of strings, not ${describe(value)}`);
      return undefined;
    }
    const wrong = value.flatMap((element, index) => (typeof element === 'string' ? [] : [index]));
    for (const index of wrong) this.problem(`${key}[${index}]`, `must be a string, not ${describe(value[index])}`);
    return wrong.length === 0 ? (value as string[]) : undefined;
  }

  /** An array of strings without whitespace (URIs, scopes: the domain splits such lists at whitespace); [] when absent. */
  tokens(key: string, what: string): string[] {
    const values = this.strings(key) ?? [];
    values.forEach((value, index) => /\s/.test(value) && this.problem(`${key}[${index}]`, `must be ${what}, without spaces`));
    return values;
  }

  /** A nested object with its own allowed members; null when absent or null (none), or when it is no object. */
  object(key: string, allowed: readonly string[]): DeclaredObject | null {
    const value = this.members[key];
    if (value === undefined || value === null) return null;
    return DeclaredObject.read(value, this.pathOf(key), allowed, this.problems);
  }
}
