import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { enrolTotp, type Enrolment } from '../../../oauth/second-factor/second-factors.js';
import { newTotpSecret, totpUri } from '../../../oauth/second-factor/totp.js';
import type { UserRecord } from '../../../oauth/store.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { ownSecondFactorEvent } from '../../../oauth/audit/second-factor-events.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { qrCodeSvg } from '../../qr-code.js';

// Setting up an authenticator app, from the account page or during a sign-in that requires one: a new secret is shown
// (QR code and text) and kept in the encrypted session cookie only; one code from the app confirms it, and only then
// is it stored, with ten recovery codes shown once.

// Long enough to find the phone and install an app; a secret older than this is replaced by a new one.
const ENROLMENT_SECONDS = 15 * 60;

/** The secret being set up for this user: the one shown before, while it is fresh, or a new one. */
function pendingSecret(deps: OAuthDeps, request: FastifyRequest, userId: number): string {
  const pending = request.session.get('totpEnrolment');
  const now = deps.now().getTime();
  if (pending !== undefined && pending.userId === userId && pending.until > now) return pending.secret;
  const secret = newTotpSecret();
  request.session.set('totpEnrolment', { userId, secret, until: now + ENROLMENT_SECONDS * 1000 });
  return secret;
}

/** The enrolment page: `action` receives the confirming code. */
export async function renderEnrolment(
  deps: OAuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  // cancel: a link (`href`), or a form that posts to `action` (the sign-in's enrolment: cancelling changes the session).
  // errorAt: the field `error` concerns (it points at the message), the code unless the current password was wrong.
  page: {
    action: string;
    cancel: { href: string } | { action: string };
    error?: string;
    errorAt?: 'code' | 'current_password';
    asksPassword?: boolean;
  },
): Promise<FastifyReply> {
  const { t } = request.pageLanguage;
  const secret = pendingSecret(deps, request, user.id);
  // The issuer is baseUrl's host name without the port: the Key URI Format allows no colon in it, and a port is not
  // what a person knows the service by (an app lists the account under this name).
  const uri = totpUri(new URL(deps.config.baseUrl).hostname, user.username, secret);
  return renderPage(request, reply, 'second-factor/enrol.eta', {
    title: t('secondFactor.enrolTitle'),
    qrCode: qrCodeSvg(uri, t('secondFactor.qrCodeLabel')),
    otpauthUri: uri,
    // Groups of four, as authenticator apps show a typed key; spaces are ignored when typed in.
    secretText: secret.match(/.{1,4}/g)!.join(' '),
    action: page.action,
    cancel: page.cancel,
    error: page.error ?? null,
    errorAt: page.errorAt ?? 'code',
    asksPassword: page.asksPassword === true,
    csrfToken: reply.generateCsrf(),
  });
}

/** Confirms the pending secret with `code`; the audit event on success. */
export async function confirmEnrolment(deps: OAuthDeps, request: FastifyRequest, user: UserRecord, code: string): Promise<Enrolment> {
  const pending = request.session.get('totpEnrolment');
  if (pending === undefined || pending.userId !== user.id || pending.until <= deps.now().getTime()) return { outcome: 'wrong_code' };
  const enrolment = await enrolTotp(deps, user.id, pending.secret, code);
  if (enrolment.outcome === 'enrolled') {
    request.session.set('totpEnrolment', undefined);
    await recordAuditEventAlone(
      deps,
      ownSecondFactorEvent('user.second_factor.enrolled', user.id, request.ip, { method: 'totp' }),
      auditWriteFailed(() => request.log),
    );
    request.log.info({ event: 'second_factor.enrolled', userId: user.id }, 'a TOTP authenticator was set up');
  }
  return enrolment;
}

/** The recovery codes, shown once, then on to `next`. */
export function renderRecoveryCodes(request: FastifyRequest, reply: FastifyReply, codes: string[], next: string): FastifyReply {
  return renderPage(request, reply, 'second-factor/recovery-codes.eta', {
    title: request.pageLanguage.t('secondFactor.recoveryCodesTitle'),
    codes,
    next,
  });
}
