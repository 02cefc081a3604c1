// oauth-service/controllers: the built-in controllers, to subclass in an extensions module (SPEC 7,
// docs/extending.md). Each class holds the actions of one controller key.
export { Controller, type ControllerServices } from './controller.js';
export { ApplicationsController, type ApplicationRoute } from '../routes/applications/controller.js';
export { AuthorizationsController } from '../routes/authorize/controller.js';
export { AuthorizedApplicationsController } from '../routes/authorized-applications/controller.js';
export { TokenInfoController } from '../routes/token-info/controller.js';
export { TokensController } from '../routes/token/controller.js';
export {
  BUILT_IN_CONTROLLERS,
  CONTROLLER_KEYS,
  type BuiltInControllers,
  type ControllerExtension,
  type ControllerKey,
  type ControllerOverrides,
  type OAuthErrors,
} from './registry.js';
// The OAuth errors an action may throw (`errors.InvalidRequest`, ...), rendered by the group's error handler.
export * as errors from '../../oauth/errors.js';
