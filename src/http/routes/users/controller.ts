import type { FastifyReply, FastifyRequest } from 'fastify';
import { UsernameTaken, type UserRecord } from '../../../oauth/store.js';
import { resolveProfile, UserInvalid } from '../../../oauth/users/user-profile.js';
import {
  createUser,
  deleteUser,
  disableUser,
  enableUser,
  findUser,
  resetUserPassword,
  revokeUserTokens,
  searchUsers,
  updateUserProfile,
} from '../../../oauth/users/users.js';
import type { RevokedAuthorizations } from '../../../oauth/authorization/authorizations.js';
import { Controller } from '../../controllers/controller.js';
import { adminActor } from '../../audit-actor.js';
import { auditedChange, recordChangeEvent } from '../../../oauth/audit/audit-trail.js';
import { userEvent } from '../../../oauth/audit/audit-subjects.js';
import { changedFormFields } from '../../../oauth/audit/changed-fields.js';
import { claimValues, profileFromBody, type UserBody } from './request-fields.js';
import { hasTotp, isMfaPolicy, removeSecondFactor, setMfaPolicy } from '../../../oauth/second-factor/second-factors.js';
import { mfaPolicyEvent, secondFactorResetEvent } from '../../../oauth/audit/second-factor-events.js';
import { passkeysResetEvent } from '../../../oauth/audit/passkey-events.js';
import { passkeysOfUser, removeAllPasskeys } from '../../../oauth/passkeys/passkeys.js';
import { identityNotFound, renderUsersPage, userNotFound } from './responses.js';
import { identitiesOfUser, removeUserIdentity } from '../../../oauth/users/user-identities.js';
import type { IdentityKey } from '../../../oauth/users/user-identity-store.js';
import { removeIdentityView } from './identity-views.js';
import {
  deleteView,
  formView,
  INDEX_PATH,
  indexView,
  passwordView,
  resetPasskeysView,
  resetSecondFactorView,
  revokeTokensView,
  showPath,
  showView,
} from './view-models.js';

/** The confirmation page (the key in the query) and the removal (the key in the form) of one identity. */
export interface IdentityRoute {
  Params: { id: string };
  Querystring: IdentityKey;
  Body: IdentityKey;
}

export interface UserRoute {
  Params: { id: string };
  Body: UserBody | undefined;
}
type UserRequest = FastifyRequest<UserRoute>;

/**
 * The admin's Users section (issue 16): list with search, create, show, edit claims, reset password, disable,
 * enable, revoke all tokens and delete. The group authenticates the admin and checks CSRF on writes first.
 */
export class UsersController extends Controller {
  async index(request: FastifyRequest<{ Querystring: { q?: string } }>, reply: FastifyReply): Promise<FastifyReply> {
    const query = request.query.q?.trim() ?? '';
    return renderUsersPage(request, reply, 'index.eta', indexView(await searchUsers(this.deps, query), query));
  }

  async new(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return renderUsersPage(request, reply, 'new.eta', formView(claimValues(null)));
  }

  async create(request: FastifyRequest<{ Body: UserBody | undefined }>, reply: FastifyReply): Promise<FastifyReply> {
    const body = request.body ?? {};
    const username = body.username ?? '';
    try {
      const create = (deps: typeof this.deps) => createUser(deps, username, body.password ?? '', profileFromBody(body));
      const user = await auditedChange(this.deps, adminActor(request), create, (r) => userEvent('user.created', r));
      request.log.info({ event: 'user.created', userId: user.id }, 'user created');
      return redirectAfter(request, reply, 'User created.', showPath(user.id));
    } catch (error) {
      const errors = error instanceof UsernameTaken ? { username: ['Username has already been taken'] } : invalidFields(error);
      // The password is never echoed back: the form with errors asks for it again.
      const { password: _password, ...typed } = body;
      return renderUsersPage(request, reply.code(422), 'new.eta', formView(claimValues(null, typed), { username, errors }));
    }
  }

  async show(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const [totp, passkeys, identities] = await Promise.all([
      hasTotp(this.deps, user.id),
      passkeysOfUser(this.deps, user.id),
      identitiesOfUser(this.deps, user.id),
    ]);
    return renderUsersPage(request, reply, 'show.eta', showView(user, totp, passkeys, identities));
  }

  async edit(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    return user ? renderUsersPage(request, reply, 'edit.eta', formView(claimValues(user), { user })) : userNotFound(request, reply);
  }

  async update(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    try {
      const profile = profileFromBody(request.body);
      const update = (deps: typeof this.deps) => updateUserProfile(deps, user, profile);
      const event = (updated: UserRecord | null) =>
        userEvent('user.updated', updated, { fields: changedFormFields(user, resolveProfile(user, profile).changes) });
      if (!(await auditedChange(this.deps, adminActor(request), update, event))) return userNotFound(request, reply);
      request.log.info({ event: 'user.updated', userId: user.id }, 'user claims updated');
      return redirectAfter(request, reply, 'User updated.', showPath(user.id));
    } catch (error) {
      const view = formView(claimValues(user, request.body), { user, errors: invalidFields(error) });
      return renderUsersPage(request, reply.code(422), 'edit.eta', view);
    }
  }

  async passwordForm(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    return user ? renderUsersPage(request, reply, 'password.eta', passwordView(user)) : userNotFound(request, reply);
  }

  async resetPassword(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    try {
      const reset = (deps: typeof this.deps) => resetUserPassword(deps, user, request.body?.password ?? '');
      const event = (changed: boolean) => userEvent('user.password_changed', changed ? user : null);
      if (!(await auditedChange(this.deps, adminActor(request), reset, event))) return userNotFound(request, reply);
    } catch (error) {
      const errors = invalidFields(error).password ?? [];
      return renderUsersPage(request, reply.code(422), 'password.eta', passwordView(user, errors));
    }
    request.log.info({ event: 'user.password_reset', userId: user.id }, 'user password reset by the admin');
    return redirectAfter(
      request,
      reply,
      'Password changed, and every sign-in of the user ended. Tokens already issued keep working: revoke them too if needed.',
      showPath(user.id),
    );
  }

  async disable(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    const disable = async (deps: typeof this.deps) => (user ? disableUser(deps, user) : null);
    const disabled = await auditedChange(this.deps, adminActor(request), disable, (r) => userEvent('user.disabled', r?.user, r?.revoked));
    if (!disabled) return userNotFound(request, reply);
    request.log.info({ event: 'user.disabled', userId: disabled.user.id, revoked: disabled.revoked }, 'user disabled');
    return redirectAfter(request, reply, `User disabled; ${describe(disabled.revoked)} revoked.`, showPath(disabled.user.id));
  }

  async enable(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    const enable = async (deps: typeof this.deps) => (user ? enableUser(deps, user) : null);
    const enabled = await auditedChange(this.deps, adminActor(request), enable, (r) => userEvent('user.enabled', r));
    if (!enabled) return userNotFound(request, reply);
    request.log.info({ event: 'user.enabled', userId: enabled.id }, 'user enabled');
    return redirectAfter(request, reply, 'User enabled: they can log in again.', showPath(enabled.id));
  }

  /** The user's own second-factor policy (users.mfa): off, optional or required. */
  async setMfa(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    const policy = (request.body as { mfa?: string } | undefined)?.mfa;
    if (!user || !isMfaPolicy(policy)) return userNotFound(request, reply);
    // The second factors' store is never inside a transaction (each write is one statement): the event follows the change.
    const changed = await setMfaPolicy(this.deps, user, policy);
    await recordChangeEvent(this.deps, adminActor(request), changed ? mfaPolicyEvent(user.id, policy) : null);
    request.log.info({ event: 'user.mfa_policy_set', userId: user.id, mfa: policy }, 'second-factor policy set');
    return redirectAfter(request, reply, `Second factor: ${policy}.`, showPath(user.id));
  }

  async confirmResetSecondFactor(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    return renderUsersPage(request, reply, 'reset-second-factor.eta', resetSecondFactorView(user));
  }

  /** Removes the user's authenticator and recovery codes: they set one up again when a policy requires it. */
  async resetSecondFactor(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const removed = await removeSecondFactor(this.deps, user.id);
    await recordChangeEvent(this.deps, adminActor(request), removed ? secondFactorResetEvent(user.id) : null);
    request.log.info({ event: 'user.second_factor_reset', userId: user.id, removed }, 'second factor reset by the admin');
    return redirectAfter(
      request,
      reply,
      removed ? 'Second factor removed: the user sets one up again when required.' : 'The user has no second factor.',
      showPath(user.id),
    );
  }

  async confirmResetPasskeys(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    return renderUsersPage(request, reply, 'reset-passkeys.eta', resetPasskeysView(user, await passkeysOfUser(this.deps, user.id)));
  }

  /**
   * Removes all the user's passkeys (a lost security key or phone): they sign in with their password and register
   * again. Apart from "Reset second factor" (the authenticator app), since losing one says nothing of the other.
   */
  async resetPasskeys(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const removed = await removeAllPasskeys(this.deps, user.id);
    await recordChangeEvent(this.deps, adminActor(request), removed.length > 0 ? passkeysResetEvent(user.id, removed) : null);
    request.log.info({ event: 'user.passkeys_reset', userId: user.id, removed: removed.length }, 'passkeys reset by the admin');
    const notice =
      removed.length > 0
        ? `${capitalised(plural(removed.length, 'passkey'))} removed, and every sign-in of the user ended: the user registers again.`
        : 'The user has no passkey.';
    return redirectAfter(request, reply, notice, showPath(user.id));
  }

  async confirmRemoveIdentity(request: FastifyRequest<IdentityRoute>, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const identities = await identitiesOfUser(this.deps, user.id);
    const { issuer, subject } = request.query;
    const identity = identities.find((one) => one.issuer === issuer && one.subject === subject);
    if (!identity) return identityNotFound(request, reply);
    return renderUsersPage(request, reply, 'remove-identity.eta', removeIdentityView(user, identity, identities.length === 1));
  }

  /**
   * Removes one sign-in identity of the user (issue 37). Unlike the user on their account page, the admin may remove
   * the last one: the user then signs in with a password the admin sets, or a passkey.
   */
  async removeIdentity(request: FastifyRequest<IdentityRoute>, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const { issuer, subject } = request.body;
    const removal = await removeUserIdentity(this.deps, adminActor(request), user.id, { issuer, subject }, { keepSignIn: false });
    if (removal.outcome !== 'removed') return identityNotFound(request, reply);
    request.log.info(
      { event: 'user.identity_removed', userId: user.id, provider: removal.identity.providerId },
      'identity removed by the admin',
    );
    return redirectAfter(
      request,
      reply,
      `Identity removed: ${removal.identity.providerName} no longer signs the user in.`,
      showPath(user.id),
    );
  }

  async confirmRevokeTokens(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    return renderUsersPage(request, reply, 'revoke-tokens.eta', revokeTokensView(user));
  }

  async revokeTokens(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const revoke = (deps: typeof this.deps) => revokeUserTokens(deps, user);
    const revoked = await auditedChange(this.deps, adminActor(request), revoke, (r) => userEvent('user.tokens_revoked', user, r));
    request.log.info({ event: 'user.tokens_revoked', userId: user.id, revoked }, 'user tokens revoked');
    return redirectAfter(request, reply, `${capitalised(describe(revoked))} revoked.`, showPath(user.id));
  }

  async confirmDestroy(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    return user ? renderUsersPage(request, reply, 'delete.eta', deleteView(user)) : userNotFound(request, reply);
  }

  async destroy(request: UserRequest, reply: FastifyReply): Promise<FastifyReply> {
    const user = await this.#user(request);
    if (!user) return userNotFound(request, reply);
    const remove = (deps: typeof this.deps) => deleteUser(deps, user);
    const revoked = await auditedChange(this.deps, adminActor(request), remove, (r) => userEvent('user.deleted', user, r));
    request.log.info({ event: 'user.deleted', userId: user.id, revoked }, 'user deleted');
    return redirectAfter(request, reply, `User deleted after revoking ${describe(revoked)}.`, INDEX_PATH);
  }

  #user(request: { params: { id: string } }): Promise<UserRecord | null> {
    return findUser(this.deps, Number(request.params.id));
  }
}

function redirectAfter(request: FastifyRequest, reply: FastifyReply, notice: string, to: string): FastifyReply {
  request.session.set('notice', notice);
  return reply.redirect(to, 302);
}

function invalidFields(error: unknown) {
  if (error instanceof UserInvalid) return error.fieldErrors;
  throw error;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const describe = ({ tokens, grants }: RevokedAuthorizations) => `${plural(tokens, 'token')} and ${plural(grants, 'grant')}`;
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
