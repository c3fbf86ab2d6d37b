/**
 * GET /docs: the API reference, rendered in the browser by Swagger UI from this server's /openapi.json.
 * Swagger UI's files come from the swagger-ui-dist package in node_modules and are served here (no CDN: the
 * page works on a farm network without internet). The start-up script is a file, not inline, so a strict
 * Content-Security-Policy can forbid inline scripts. GET /docs/guide/{page}: the user guide's pages
 * (docs/guide/*.md) as Markdown, which the OAuth metadata names as the MCP connector's documentation.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Farmstead API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="api"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#api',
  deepLinking: true,
  defaultModelsExpandDepth: 0,
  // Tags open on a click: drawing all ~140 operations at once keeps Swagger UI busy for many seconds.
  docExpansion: 'none',
  tryItOutEnabled: false,
});
`;

const GUIDE = path.join(import.meta.dirname, '../../../docs/guide');

/** The guide's pages by name (`mcp` for docs/guide/mcp.md): only these are served, so no path reaches further. */
const GUIDE_PAGES = new Set(
  readdirSync(GUIDE)
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.slice(0, -'.md'.length)),
);

/** The two Swagger UI files the page loads, by their URL name. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const route = { config: { auth: 'none' as const }, schema: { hide: true } };
  // Read once, on first use: the bundle is about 1.5 MB and most processes never serve it.
  const cache = new Map<string, Buffer>();

  app.get('/docs', route, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', route, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(INIT),
  );
  app.get<{ Params: { page: string } }>('/docs/guide/:page', route, async (request, reply) => {
    const { page } = request.params;
    if (!GUIDE_PAGES.has(page)) {
      throw new AppError('not_found', `No guide page "${page}": ${[...GUIDE_PAGES].sort().join(', ')}.`);
    }
    const text = await readFile(path.join(GUIDE, `${page}.md`));
    return reply
      .type('text/markdown; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(text);
  });
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/docs/${name}`, route, async (_request, reply) => {
      let body = cache.get(name);
      if (!body) {
        body = await readFile(path.join(DIST, name));
        cache.set(name, body);
      }
      return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
    });
  }
}
