import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-lines.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

// docs/operations.md: one JSON line per request, when it completes; `incoming request` only at debug.
describe('request log lines', () => {
  let server: TestServer | null = null;
  afterEach(() => server?.close());

  async function linesAt(level: 'info' | 'debug'): Promise<Record<string, unknown>[]> {
    const { stream: logStream, lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level, format: 'json' } }, logStream });
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: form({ grant_type: 'password' }),
    });
    expect(response.statusCode).toBe(400);
    return lines.filter((line) => line.reqId !== undefined);
  }

  it('at info, one line per request once answered: method, URL, address, status and time', async () => {
    const lines = await linesAt('info');
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      req: { method: 'POST', url: '/oauth/token', remoteAddress: '127.0.0.1' },
      res: { statusCode: 400 },
    });
    expect(completed[0]!.responseTime).toEqual(expect.any(Number));
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(0);
  });

  it('at debug, also the line of the request as it arrives', async () => {
    const lines = await linesAt('debug');
    expect(lines.filter((line) => line.msg === 'incoming request')).toMatchObject([{ req: { method: 'POST', url: '/oauth/token' } }]);
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(1);
  });
});
