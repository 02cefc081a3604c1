// HTTP for .ci/container-check: the client side of the image and Compose checks, with Node's fetch only (it also
// runs inside the local Node base image, as a client at an address of the Compose network).
//
//   node container-http.mjs token BASE CLIENT_ID SECRET         one client_credentials request: prints
//                                                                "<status> <retry-after or -> <error or ->"
//   node container-http.mjs attempts BASE CLIENT_ID SECRET N    N such requests one after another, one line each
//   node container-http.mjs load BASE CLIENT_ID SECRET SECONDS  a request every 100 ms for SECONDS: one line each,
//                                                                "<ms since start> <status> <retry-after or -> <error
//                                                                or -> <ms it took>"
//   node container-http.mjs sign-in BASE                        /login's page, then with its session and CSRF token a
//                                                                passkey's options and a wrong password: prints
//                                                                "<options status> <password status>"
import { URLSearchParams } from 'node:url';

const [command, base, clientId, secret, count] = process.argv.slice(2);

async function token() {
  // AbortSignal.timeout's timer does not keep Node running: while a connection hangs with nothing else pending (a
  // published port whose container is starting), Node would exit with code 13 (an unsettled top-level await).
  const keepAlive = setTimeout(() => {}, 26_000);
  try {
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
      // Longer than a request may wait for the database by design (databaseFailoverRetrySeconds, 10 s, plus the
      // last attempt's 5 s connect timeout): a timeout here is a hang.
      signal: AbortSignal.timeout(25_000),
    });
    const body = await response.json().catch(() => ({}));
    return `${response.status} ${response.headers.get('retry-after') ?? '-'} ${body.error ?? '-'}`;
  } catch (error) {
    return `000 - ${error.cause?.code ?? error.name}`;
  } finally {
    clearTimeout(keepAlive);
  }
}

async function signIn() {
  const page = await fetch(`${base}/login`);
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const options = await fetch(`${base}/login/passkey/options`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: '{}',
  });
  const password = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, username: 'nobody', password: 'not the password' }),
    redirect: 'manual',
  });
  return `${options.status} ${password.status}`;
}

switch (command) {
  case 'token':
    console.log(await token());
    break;
  case 'attempts':
    for (let i = 0; i < Number(count); i += 1) console.log(await token());
    break;
  case 'load': {
    const start = Date.now();
    while (Date.now() - start < Number(count) * 1000) {
      const sent = Date.now();
      const line = await token();
      console.log(`${sent - start} ${line} ${Date.now() - sent}`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - sent))));
    }
    break;
  }
  case 'sign-in':
    console.log(await signIn());
    break;
  default:
    console.error(`unknown command ${command}: token, attempts, load or sign-in`);
    process.exit(2);
}
