import type { FastifyReply } from 'fastify';
import { noStore } from '../../no-store.js';

// The passkey endpoints' JSON answers. Options carry a challenge and errors a reason: neither may be cached.

export const sendJson = (reply: FastifyReply, body: object): FastifyReply => noStore(reply, { pragma: false }).send(body);

/** A refusal as the product's JSON errors are shaped (error, error_description); the page's script shows the text. */
export const sendRefusal = (reply: FastifyReply, status: number, error: string, description: string): FastifyReply =>
  sendJson(reply.code(status), { error, error_description: description });
