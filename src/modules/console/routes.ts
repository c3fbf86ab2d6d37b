/**
 * The console: every page path of CONSOLE_PAGES answers the same HTML page (the browser app routes it), and
 * /console/assets/<hash>/… serves the app's files. No key is needed for either: the pages hold no data; the
 * app reads everything from /v1 with the session cookie, where the server decides what each person may do.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { ASSET_PREFIX, type Asset, consoleBundle, type Encoding, type MapTiles } from './assets.ts';
import { CONSOLE_PAGES } from './pages.ts';

/** The encoding to answer with: brotli, then gzip, when the client accepts it (a q=0 entry refuses it). */
export function pickEncoding(header: string | undefined): Encoding | null {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    if (name && !refused) accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

/** A hashed file is never asked for again (a year, `immutable`; a new version is a new URL). */
const IMMUTABLE = 'public, max-age=31536000, immutable';

async function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string) {
  reply.header('cache-control', cacheControl).header('vary', 'accept-encoding');
  reply.header('x-content-type-options', 'nosniff');
  // An ETag only where the browser revalidates: on the ~40 files of a first load it was about 1.3 KB of headers.
  if (cacheControl !== IMMUTABLE) {
    reply.header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  }
  const encoding = pickEncoding(request.headers['accept-encoding']);
  reply.type(asset.type);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(encoding ? await asset.encoded(encoding) : asset.identity);
}

export async function consoleRoutes(app: FastifyInstance, { tiles }: { tiles: MapTiles }): Promise<void> {
  // Compressed in assets.ts (each file once); the compression plugin must leave these answers alone.
  const route = { config: { auth: 'none' as const }, schema: { hide: true }, compress: false as const };

  for (const consolePage of CONSOLE_PAGES) {
    const { path, secrets } = consolePage;
    const pageRoute = secrets ? { ...route, config: { ...route.config, secrets } } : route;
    app.get(path, pageRoute, async (request, reply) => {
      const { page, csp } = (await consoleBundle()).pageFor(tiles, consolePage);
      reply
        .header('content-security-policy', csp)
        // A setup link's token is in the URL: never send it on as a Referer.
        .header('referrer-policy', 'no-referrer')
        .header('x-frame-options', 'DENY');
      return sendAsset(request, reply, page, 'no-cache');
    });
  }

  // The service worker, at the root so its scope is the whole console; revalidated on every check, so a new
  // deploy's worker (a new VERSION) replaces the old one and its caches.
  app.get('/sw.js', route, async (request, reply) => {
    const bundle = await consoleBundle();
    reply.header('service-worker-allowed', '/');
    return sendAsset(request, reply, bundle.serviceWorker, 'no-cache');
  });
  for (const file of ['/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png']) {
    app.get(file, route, async (request, reply) => {
      const asset = (await consoleBundle()).installFiles.get(file);
      if (!asset) throw new AppError('not_found', `No ${file}.`);
      return sendAsset(request, reply, asset, 'public, max-age=86400');
    });
  }

  app.get<{ Params: { hash: string; '*': string } }>(
    `${ASSET_PREFIX}/:hash/*`,
    route,
    async (request, reply) => {
      const bundle = await consoleBundle();
      const asset = request.params.hash === bundle.hash ? bundle.assets.get(request.params['*']) : undefined;
      if (!asset) {
        throw new AppError(
          'not_found',
          'No such console file; the console was probably updated since this page loaded: reload it.',
        );
      }
      return sendAsset(request, reply, asset, IMMUTABLE);
    },
  );
}
