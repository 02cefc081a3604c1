/**
 * The report of an extension hook that failed and was passed over (the beforeTokenResponse hook: the grant's own body
 * is sent), on `log`: a request's logger, so that the line carries the reqId the caller reports.
 */
export const extensionFailed =
  (log: { error(details: object, message: string): void }) =>
  (hook: string, error: unknown): void =>
    log.error({ err: error, event: 'extension.failed', hook }, `the ${hook} extension hook failed`);
