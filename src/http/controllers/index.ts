// oauth-service/controllers: the built-in controllers, to subclass in an extensions module (SPEC 7,
// docs/extending.md). Each class holds the actions of one controller key.
export { Controller, type ControllerServices } from './controller.js';
export { ApplicationsController, type ApplicationRoute } from './applications-controller.js';
export { AuthorizationsController } from './authorizations-controller.js';
export { AuthorizedApplicationsController } from './authorized-applications-controller.js';
export { TokenInfoController } from './token-info-controller.js';
export { TokensController } from './tokens-controller.js';
export { BUILT_IN_CONTROLLERS, type BuiltInControllers, type ControllerExtension, type ControllerOverrides } from './registry.js';
export { CONTROLLER_KEYS, type ControllerKey } from '../extensions.js';
