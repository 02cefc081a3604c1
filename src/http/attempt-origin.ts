import type { FastifyRequest } from 'fastify';
import type { AttemptOrigin } from '../oauth/limits/attempt-limits.js';
import { limitedAddress } from '../oauth/limits/limited-address.js';

/** A request as the failure limits count it: its address (IPv6 by its /64), and its id for a lockout's log line. */
export const attemptOrigin = (request: FastifyRequest): AttemptOrigin => ({ address: limitedAddress(request.ip), requestId: request.id });
