import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import view from '@fastify/view';
import { Eta } from 'eta';
import { publicPath } from '../public-base-path.js';

/** views/, found from both src/http/plugins (tsx) and dist/http/plugins (compiled). */
export const VIEWS_DIR =
  [join(import.meta.dirname, '../../../views'), join(process.cwd(), 'views')].find((dir) => existsSync(dir)) ??
  join(process.cwd(), 'views');

export const PUBLIC_DIR = join(VIEWS_DIR, '../public');

export interface ViewsOptions {
  /** publicBasePath(config.baseUrl): '' for an issuer at the root. */
  basePath: string;
}

/**
 * Eta templates with escaping on by default (STYLE 14): templates display, handlers decide. Every view gets
 * `it.basePath` for the paths it writes itself (`<%= it.basePath %>/login`) and `it.url(path)` for those its view
 * model gives (route paths, or a client's absolute URLs, which it leaves alone): behind a proxy that strips the
 * issuer's path, a browser reaches /login at /tenant/login (SPEC 3.7).
 */
export const viewsPlugin = fp<ViewsOptions>(
  async (app, { basePath }) => {
    const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });
    const defaultContext = { basePath, url: (path: string) => publicPath(basePath, path) };
    await app.register(view, { engine: { eta }, root: VIEWS_DIR, layout: 'layout.eta', viewExt: 'eta', defaultContext });
    const stylesheet = readFileSync(join(PUBLIC_DIR, 'style.css'));
    app.get('/assets/style.css', async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(stylesheet),
    );
  },
  { name: 'views' },
);
