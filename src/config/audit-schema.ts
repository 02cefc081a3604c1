// config `audit` (issue 32 item 7): how long the audit trail keeps its events. Part of config/schema.ts.

export const auditSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'The audit trail (oauth_audit_events): security events shown on /oauth/audit and by `oauth-service audit list`.',
  properties: {
    retentionDays: {
      type: 'integer',
      minimum: 1,
      maximum: 36500,
      default: 90,
      description: 'Days an audit event is kept; `tokens cleanup` deletes older ones in bounded batches.',
    },
  },
} as const;
