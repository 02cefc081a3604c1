import fp from 'fastify-plugin';
import type { Config } from '../../config/types.js';
import { requireDecryptableSigningKeys } from '../../oauth/keys/signing-key-check.js';
import { ensureSigningKeys, signingKeySettings, type SigningKeyDeps } from '../../oauth/keys/signing-key-service.js';

// Keys rotate by themselves: at boot (so the JWKS is never empty) and then on a timer, on every instance; the
// lock in the store makes exactly one instance make each key. A failure is logged and tried again next time.
export const signingKeyRotationPlugin = fp<{ deps: SigningKeyDeps & { config: Pick<Config, 'dataDir'> } }>(
  async (app, { deps }) => {
    const { publishAheadSeconds } = signingKeySettings(deps.config);
    // Often enough that a successor is always made well inside its publish-ahead window.
    const everyMs = Math.max(10, Math.min(3600, Math.floor(publishAheadSeconds / 4))) * 1000;
    const rotate = async () => {
      const made = await ensureSigningKeys(deps);
      for (const key of made)
        app.log.info({ event: 'signing_key.created', kid: key.kid, alg: key.alg, signsFrom: key.signsFrom }, 'signing key created');
    };
    let timer: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      // Issue 31 item 6: no start with keys this instance cannot sign with (another KEY_ENCRYPTION_KEY stored them),
      // which would answer every code exchange with 500; the error names them and the way out.
      await requireDecryptableSigningKeys(deps);
      await rotate();
      timer = setInterval(() => rotate().catch((error: unknown) => app.log.error({ err: error }, 'signing key rotation failed')), everyMs);
      timer.unref();
    });
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
    });
  },
  { name: 'signing-key-rotation' },
);
