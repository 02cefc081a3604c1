import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidToken } from '../../../oauth/errors.js';
import { describeAccessToken } from '../../../oauth/tokens/token-info.js';
import { noStore } from '../../no-store.js';
import { accessTokenRecordOf } from '../../plugins/local-guard.js';
import { Controller } from '../../controllers/controller.js';

/**
 * Controller key `token_info`: `show` answers GET /oauth/token/info (reference 11, SPEC 3.4) with the token
 * that the guard's serviceAuthorize preHandler accepted; the guard has already answered every request
 * without a valid token with 401 invalid_token and its RFC 6750 challenge.
 */
export class TokenInfoController extends Controller {
  async show(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const record = accessTokenRecordOf(await request.serviceToken());
    // Only reached without a record when a subclass calls show() on a route the guard does not protect.
    if (!record) throw new InvalidToken('unknown');
    return noStore(reply).send(await describeAccessToken(this.deps, record));
  }
}
