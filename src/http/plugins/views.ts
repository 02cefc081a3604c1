import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import view from '@fastify/view';
import { Eta } from 'eta';

/** views/, found from both src/http/plugins (tsx) and dist/http/plugins (compiled). */
export const VIEWS_DIR =
  [join(import.meta.dirname, '../../../views'), join(process.cwd(), 'views')].find((dir) => existsSync(dir)) ??
  join(process.cwd(), 'views');

export const PUBLIC_DIR = join(VIEWS_DIR, '../public');

/** Eta templates with escaping on by default (STYLE 14): templates display, handlers decide. */
export const viewsPlugin = fp(
  async (app) => {
    const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });
    await app.register(view, { engine: { eta }, root: VIEWS_DIR, layout: 'layout.eta', viewExt: 'eta' });
    const stylesheet = readFileSync(join(PUBLIC_DIR, 'style.css'));
    app.get('/assets/style.css', async (_request, reply) =>
      reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(stylesheet),
    );
  },
  { name: 'views' },
);
