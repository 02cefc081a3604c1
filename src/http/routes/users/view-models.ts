import type { PasskeyRecord } from '../../../oauth/passkeys/passkey-store.js';
import { isSynced } from '../../../oauth/passkeys/passkeys.js';
import type { UserRecord } from '../../../oauth/store.js';
import {
  ADDRESS_FIELDS,
  ADDRESS_LABELS,
  BOOLEAN_CLAIMS,
  parseAddress,
  STRING_CLAIMS,
  type ProfileErrors,
} from '../../../oauth/users/user-profile.js';
import { SEARCH_LIMIT } from '../../../oauth/users/users.js';
import type { UserIdentity } from '../../../oauth/users/user-identities.js';
import type { ClaimValues } from './request-fields.js';
import { identityRows } from './identity-views.js';
import { adminTime } from '../../page-time.js';

// Small view models for views/users/*.eta (STYLE 14): the handlers decide, the templates print.

export const INDEX_PATH = '/oauth/users';
export const showPath = (id: number) => `${INDEX_PATH}/${id}`;

const HELP: Record<string, string> = {
  email: 'Such as alice@example.com.',
  phone_number: 'E.164 is recommended, such as +1 (425) 555-1212.',
  profile: 'An absolute https or http URL.',
  picture: 'An absolute https or http URL of an image.',
  website: 'An absolute https or http URL.',
  birthdate: 'YYYY-MM-DD or YYYY; 0000-MM-DD when the year is not known.',
  zoneinfo: 'An IANA time zone, such as Europe/Paris.',
  locale: 'A BCP47 language tag, such as en-US.',
};
const INPUT_MODES: Record<string, string> = { email: 'email', phone_number: 'tel', profile: 'url', picture: 'url', website: 'url' };

export function indexView(users: UserRecord[], query: string) {
  return {
    title: 'Users',
    navUsers: true,
    query,
    searched: query !== '',
    // The list is bounded: past the limit, the admin narrows the search.
    truncated: users.length >= SEARCH_LIMIT,
    limit: SEARCH_LIMIT,
    users: users.map((user) => ({
      id: user.id,
      username: user.username,
      name: user.name ?? '',
      email: user.email ?? '',
      state: user.disabledAt ? 'Disabled' : 'Active',
      href: showPath(user.id),
    })),
  };
}

/** The new-user form (username and password too) or the edit form of a user's claims. */
export function formView(values: ClaimValues, options: { user?: UserRecord; username?: string; errors?: ProfileErrors } = {}) {
  const { user, errors = {} } = options;
  const messages = (name: string, label: string) => (errors[name] ?? []).map((message) => bare(message, label));
  const text = (name: string, label: string, multiline = false) => {
    const id = `user_${name}`;
    const fieldErrors = messages(name, label);
    const help = HELP[name] ?? null;
    const describedBy = [help && `${id}_help`, fieldErrors.length > 0 && `${id}_errors`].filter(Boolean).join(' ');
    return {
      id,
      name,
      label,
      value: values.text[name] ?? '',
      help,
      inputMode: INPUT_MODES[name] ?? null,
      multiline,
      errors: fieldErrors,
      describedBy,
    };
  };
  return {
    title: user ? `Edit ${user.username}` : 'New user',
    navUsers: true,
    action: user ? showPath(user.id) : INDEX_PATH,
    method: user ? 'patch' : null,
    cancelHref: user ? showPath(user.id) : INDEX_PATH,
    hasErrors: Object.keys(errors).length > 0,
    account: user
      ? null
      : {
          username: { ...text('username', 'Username'), value: options.username ?? '' },
          password: { errors: messages('password', 'Password') },
        },
    claims: STRING_CLAIMS.map(({ claim, label }) => text(claim, label)),
    checkboxes: BOOLEAN_CLAIMS.map(({ claim, label }) => ({ id: `user_${claim}`, name: claim, label, checked: values.checked[claim] })),
    address: ADDRESS_FIELDS.map((member) =>
      text(`address_${member}`, ADDRESS_LABELS[member], member === 'formatted' || member === 'street_address'),
    ),
  };
}

/** What the admin sees of a user's passkeys: never the credential id or key, which tell a reader nothing. */
const passkeyRow = (passkey: PasskeyRecord) => ({
  name: passkey.name,
  createdAt: adminTime(passkey.createdAt),
  lastUsedAt: passkey.lastUsedAt ? adminTime(passkey.lastUsedAt) : 'never',
  kind: isSynced(passkey) ? 'Synced' : 'Device-bound',
});

export function showView(user: UserRecord, hasSecondFactor = false, passkeys: PasskeyRecord[] = [], identities: UserIdentity[] = []) {
  const address = parseAddress(user.address);
  const claims = [
    ...STRING_CLAIMS.map(({ field, claim, label }) => ({ claim, label, value: user[field] })),
    ...BOOLEAN_CLAIMS.map(({ field, claim, label }) => ({ claim, label, value: user[field] ? 'Yes' : 'No' })),
    ...ADDRESS_FIELDS.map((member) => ({ claim: `address_${member}`, label: ADDRESS_LABELS[member], value: address[member] ?? null })),
  ];
  const base = showPath(user.id);
  return {
    title: `User: ${user.username}`,
    navUsers: true,
    user: {
      username: user.username,
      subject: user.subject,
      createdAt: adminTime(user.createdAt),
      updatedAt: adminTime(user.profileUpdatedAt),
      disabledAt: user.disabledAt ? adminTime(user.disabledAt) : null,
    },
    secondFactor: {
      enrolled: hasSecondFactor,
      mfa: user.mfa,
      policies: ['off', 'optional', 'required'],
      policyAction: `${showPath(user.id)}/mfa`,
      resetHref: `${showPath(user.id)}/reset_second_factor`,
    },
    passkeys: { list: passkeys.map(passkeyRow), resetHref: `${base}/reset_passkeys` },
    identities: identityRows(user.id, identities),
    claims: claims.filter((claim) => claim.value !== null),
    actions: {
      editHref: `${base}/edit`,
      passwordHref: `${base}/password`,
      deleteHref: `${base}/delete`,
      disableAction: user.disabledAt ? null : `${base}/disable`,
      enableAction: user.disabledAt ? `${base}/enable` : null,
      revokeHref: `${base}/revoke_tokens`,
    },
  };
}

export function passwordView(user: UserRecord, errors: string[] = []) {
  return {
    title: `Reset the password of ${user.username}`,
    navUsers: true,
    username: user.username,
    action: `${showPath(user.id)}/password`,
    cancelHref: showPath(user.id),
    errors: errors.map((message) => bare(message, 'Password')),
  };
}

/** The confirmation before all the user's passkeys are removed. */
export const resetPasskeysView = (user: UserRecord, passkeys: PasskeyRecord[]) => ({
  ...confirmationView(user, `Remove all passkeys of ${user.username}?`, 'reset_passkeys'),
  count: passkeys.length,
});

/** The confirmation before the user's authenticator app and recovery codes are removed. */
export const resetSecondFactorView = (user: UserRecord) =>
  confirmationView(user, `Reset the second factor of ${user.username}?`, 'reset_second_factor');

/** The confirmation before every token and code of the user is revoked. */
export const revokeTokensView = (user: UserRecord) => confirmationView(user, `Revoke all tokens of ${user.username}?`, 'revoke_tokens');

const confirmationView = (user: UserRecord, title: string, action: string) => ({
  title,
  navUsers: true,
  username: user.username,
  action: `${showPath(user.id)}/${action}`,
  cancelHref: showPath(user.id),
});

export function deleteView(user: UserRecord) {
  return {
    title: `Delete ${user.username}?`,
    navUsers: true,
    username: user.username,
    action: showPath(user.id),
    cancelHref: showPath(user.id),
  };
}

// Beside its field a message goes without the field's name, capitalised ("Must be an email address, ...").
function bare(message: string, label: string): string {
  const text = message.startsWith(`${label} `) ? message.slice(label.length + 1) : message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
