import type { FastifyPluginAsync } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler } from '../../hooks/end-user-pages.js';
import type { RouteOptions } from '../../route-options.js';
import {
  ACCOUNT_SECOND_FACTOR_PATH,
  confirmAccountEnrolment,
  newAccountRecoveryCodes,
  removeAccountSecondFactor,
  showAccountEnrolment,
  withAccountUser,
} from './account-second-factor.js';
import { withPendingUser } from './pending-sign-in.js';
import {
  cancelSecondStep,
  SECOND_STEP_CANCEL_PATH,
  SECOND_STEP_ENROL_PATH,
  SECOND_STEP_PATH,
  showSecondStep,
  showSecondStepEnrolment,
  submitSecondStep,
  submitSecondStepEnrolment,
} from './second-step.js';

const csrf = { _csrf: { type: 'string', description: 'CSRF token of the form.' } } as const;
const codeBody = {
  type: 'object',
  properties: {
    code: { type: 'string', maxLength: 64, description: 'A 6-digit code of the authenticator app, or a recovery code.' },
    ...csrf,
  },
} as const;
const enrolmentBody = {
  type: 'object',
  properties: { ...codeBody.properties, current: { type: 'string', maxLength: 1024, description: 'The current password.' } },
} as const;
const proofBody = {
  type: 'object',
  properties: { proof: { type: 'string', maxLength: 1024, description: 'The current password, or a code of the second factor.' }, ...csrf },
} as const;

/** The second step of /login and the account page's second factor (issue 35 item 2). */
export const secondFactorRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const csrfProtection = app.csrfProtection;

  app.get(SECOND_STEP_PATH, withPendingUser(deps, showSecondStep));
  app.post<{ Body: { code?: string } }>(
    SECOND_STEP_PATH,
    { schema: { body: codeBody }, preHandler: csrfProtection },
    withPendingUser(deps, submitSecondStep),
  );
  // Without a pending sign-in too: cancelling what has expired already still lands on /login.
  app.post(SECOND_STEP_CANCEL_PATH, { schema: { body: codeBody }, preHandler: csrfProtection }, (request, reply) =>
    cancelSecondStep(request, reply),
  );
  app.get(SECOND_STEP_ENROL_PATH, withPendingUser(deps, showSecondStepEnrolment));
  app.post<{ Body: { code?: string } }>(
    SECOND_STEP_ENROL_PATH,
    { schema: { body: codeBody }, preHandler: csrfProtection },
    withPendingUser(deps, submitSecondStepEnrolment),
  );

  app.get<{ Body: Record<string, never> }>(
    ACCOUNT_SECOND_FACTOR_PATH,
    { preHandler: authenticate },
    withAccountUser(deps, showAccountEnrolment),
  );
  app.post<{ Body: { code?: string; current?: string } }>(
    ACCOUNT_SECOND_FACTOR_PATH,
    { schema: { body: enrolmentBody }, preHandler: [authenticate, csrfProtection] },
    withAccountUser(deps, confirmAccountEnrolment),
  );
  app.post<{ Body: { proof?: string } }>(
    `${ACCOUNT_SECOND_FACTOR_PATH}/recovery-codes`,
    { schema: { body: proofBody }, preHandler: [authenticate, csrfProtection] },
    withAccountUser(deps, newAccountRecoveryCodes),
  );
  app.post<{ Body: { proof?: string } }>(
    `${ACCOUNT_SECOND_FACTOR_PATH}/remove`,
    { schema: { body: proofBody }, preHandler: [authenticate, csrfProtection] },
    withAccountUser(deps, removeAccountSecondFactor),
  );
};
