import fp from 'fastify-plugin';

/**
 * Graceful shutdown ends the connections of the requests it lets finish. close() stops accepting connections, closes
 * the idle ones and waits for the others; but a keep-alive connection that carried an in-flight request was not idle
 * then and is idle after its response, so close() waited for keepAliveTimeout (72 s) before the process could exit:
 * longer than `docker stop` (10 s) or Kubernetes (30 s) wait before SIGKILL. A response sent while closing says
 * `Connection: close`, after which the connection ends (RFC 9112 section 9.6).
 */
export const shutdownConnectionsPlugin = fp(
  async (app) => {
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    // A callback hook: it runs on every response, where an async one would cost a promise each time (issue 21).
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'shutdown-connections' },
);
