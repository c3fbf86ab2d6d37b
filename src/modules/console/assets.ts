/**
 * The console's files as the browser receives them, built once per process on first use (no build step):
 * the sources of sources.ts (the browser modules under web/, every src/ module they import, the library
 * modules of VENDOR, mapped for the browser by an import map), an HTML page per console page preloading what
 * it imports, and the service worker.
 *
 * Every file is served under /console/assets/<hash>/, where the hash covers all the files, so each answer
 * can be cached for a year (`immutable`): a changed file is a new hash and a new URL. Each file is
 * compressed (brotli, gzip) the first time a browser asks for it that way, on zlib's thread pool, and kept;
 * the HTML page itself revalidates with its ETag.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlibConstants } from 'node:zlib';
import { ICON_SIZES, iconPng, manifest, THEME_COLOR } from './icons.ts';
import {
  collectSources,
  ENTRY,
  PAGES,
  SHELL,
  STYLES,
  serviceWorkerScript,
  staticClosure,
  TYPES,
  VENDOR,
  vendorPath,
} from './sources.ts';

/** Modules only some pages import (charts, the map): not preloaded with the page. */
const ON_DEMAND = new Set([
  'vendor/uplot.mjs',
  'src/modules/console/web/chart.ts',
  // A chart's drawing and a paddock's small map: imported when they come into view.
  'src/modules/console/web/chart-plot.ts',
  'src/modules/console/web/paddock-outline.ts',
  'src/modules/console/web/language.ts',
  'vendor/leaflet.mjs',
  'src/modules/console/web/map.ts',
  // The field app's data and queue: imported by web/offline.ts once the page is shown (docs/offline.md).
  'vendor/idb.mjs',
  'src/modules/console/web/offline-data.ts',
  'src/modules/console/web/offline-db.ts',
  'src/modules/console/web/offline-reads.ts',
  'src/modules/console/web/offline-changes.ts',
  'src/modules/console/web/change-label.ts',
  'src/modules/console/web/offline-refresh.ts',
  'src/modules/console/web/background-sync.ts',
  'src/modules/console/web/queue-send.ts',
  'src/modules/console/web/farm-map.ts',
  // The Map page's panels: with the first tap on the map.
  'src/modules/console/web/map-panels.ts',
  // The herd book's shared pieces: only its pages and the animal pages import them (issue 46).
  'src/modules/console/web/herd-book.ts',
  // The chute page's scale reader over Web Serial and its line reader (issue 47).
  'src/modules/console/web/scale.ts',
  'src/domain/indicator.ts',
  'src/modules/console/web/draw.ts',
  // Issue 45: Spanish loads for a Spanish reader; the event log's sentences and picker, the Account page's
  // units and language, with the pages that use them.
  'src/modules/console/web/messages/es.ts',
  'src/modules/console/web/event-sentences.ts',
  'src/modules/console/web/subject-picker.ts',
  'src/modules/console/web/names.ts',
  'src/modules/console/web/reading-form.ts',
  'src/modules/console/web/map-draw.ts',
  'src/modules/console/web/messages/map-draw.ts',
  'src/modules/console/web/map-import.ts',
  'src/domain/paddock-split.ts',
  'src/domain/paddock-import.ts',
  'src/lib/geo.ts',
  'vendor/@geoman-io-leaflet-geoman-free.mjs',
  'vendor/@turf-area.mjs',
  'vendor/@turf-helpers.mjs',
  'vendor/@turf-meta.mjs',
  // The after-dark rule, imported by web/command-form.ts when a command is sent.
  'src/domain/confirmation.ts',
  'src/lib/solar.ts',
  'vendor/suncalc.mjs',
]);

export const ASSET_PREFIX = '/console/assets';

export type Encoding = 'br' | 'gzip';

export interface Asset {
  type: string;
  identity: Buffer;
  /**
   * The file compressed with brotli (quality 11) or gzip (level 9): made the first time it is asked for, off
   * the event loop, then kept for the process. Compressing all 174 files up front took 1.8 s of CPU (2 cores,
   * issue 43), the event loop blocked, at the first console request after every start; a page's first load
   * asks for about 40 of them.
   */
  encoded(encoding: Encoding): Promise<Buffer>;
  etag: string;
}

/** The operator's map tiles (config mapTiles, mapAttribution), which the page carries in two meta tags. */
export interface MapTiles {
  /** The URL template, or null for no tiles. */
  url: string | null;
  attribution: string;
}

export interface ConsolePage {
  page: Asset;
  /** The Content-Security-Policy for the page (the import map is its one inline script, allowed by hash). */
  csp: string;
}

export interface ConsoleBundle {
  hash: string;
  /** By path under /console/assets/<hash>/. */
  assets: ReadonlyMap<string, Asset>;
  /**
   * The console's HTML page for one of CONSOLE_PAGES' `page` modules and its CSP, for a map tile setting.
   * Every page path answers the same app; only what it preloads differs: the app's own modules, then (for a
   * page that needs a session) the signed-in shell's, and the page module with what it imports statically.
   * A public page (sign-in) so preloads only what it needs.
   */
  pageFor(tiles: MapTiles, page?: { page: string; public?: boolean }): ConsolePage;
  /** The service worker, its cache version set to this bundle's hash (a new deploy replaces old caches). */
  serviceWorker: Asset;
  /** The web app manifest and the icons it names, by path (`/manifest.webmanifest`, `/icons/…`). */
  installFiles: ReadonlyMap<string, Asset>;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESS: Record<Encoding, (identity: Buffer) => Promise<Buffer>> = {
  br: (identity) =>
    brotliAsync(identity, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
  gzip: (identity) => gzipAsync(identity, { level: 9 }),
};

function compressed(type: string, identity: Buffer): Asset {
  const made: Partial<Record<Encoding, Promise<Buffer>>> = {};
  return {
    type,
    identity,
    encoded(encoding) {
      let bytes = made[encoding];
      if (!bytes) {
        bytes = COMPRESS[encoding](identity);
        made[encoding] = bytes;
        // A failure is not kept: the next request tries again.
        bytes.catch(() => {
          if (made[encoding] === bytes) delete made[encoding];
        });
      }
      return bytes;
    },
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
  };
}

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Where the tiles of a URL template come from, for `img-src`: its origin, with a `{s}` subdomain as `*.`
 * (so `https://{s}.tile.example.org/…` allows `https://*.tile.example.org`).
 */
export function tileOrigin(template: string): string {
  const url = new URL(template.replace('{s}', 'subdomain-placeholder'));
  return url.origin.replace('subdomain-placeholder.', '*.');
}

function pageHtml(base: string, importMap: string, modules: string[], tiles: MapTiles): string {
  const preload = modules.map((m) => `  <link rel="modulepreload" href="${base}/${m}">`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light">
  <title>Farmstead</title>
  <meta name="theme-color" content="${THEME_COLOR}">
  <meta name="farmstead-map-tiles" content="${escapeAttribute(tiles.url ?? 'none')}">
  <meta name="farmstead-map-attribution" content="${escapeAttribute(tiles.attribution)}">
  <link rel="manifest" href="/manifest.webmanifest">
  <link rel="icon" href="/icons/icon-192.png">
  <link rel="apple-touch-icon" href="/icons/icon-192.png">
  <link rel="stylesheet" href="${base}/${STYLES}">
  <script type="importmap">${importMap}</script>
${preload}
  <script type="module" src="${base}/${ENTRY}"></script>
</head>
<body>
  <div id="app"><p class="boot">Loading Farmstead…</p></div>
  <noscript><p class="boot">The Farmstead console needs JavaScript.</p></noscript>
</body>
</html>
`;
}

async function build(release: string): Promise<ConsoleBundle> {
  const sources = await collectSources();
  const digest = createHash('sha256').update(release);
  for (const [file, { text }] of [...sources].sort(([a], [b]) => a.localeCompare(b))) {
    digest.update(file).update('\0').update(text).update('\0');
  }
  const hash = digest.digest('hex').slice(0, 16);
  const base = `${ASSET_PREFIX}/${hash}`;
  const assets = new Map<string, Asset>();
  for (const [file, { type, text }] of sources) assets.set(file, compressed(type, Buffer.from(text)));
  const importMap = JSON.stringify({
    imports: Object.fromEntries(Object.keys(VENDOR).map((name) => [name, `${base}/${vendorPath(name)}`])),
  });
  const scriptHash = createHash('sha256').update(importMap).digest('base64');
  // The libraries only some pages use load on demand (never preloaded); a page preloads the rest of what it
  // imports statically, starting from the app, the signed-in shell (pages needing a session) and its module.
  const preloaded = (start: string[]) =>
    staticClosure(sources, start).filter((f) => !f.endsWith('.css') && !ON_DEMAND.has(f));
  // One HTML page per tile setting and page module (a process has one tile setting; tests try several),
  // made on first use.
  const pages = new Map<string, ConsolePage>();
  const pageFor = (tiles: MapTiles, page = { page: 'brief' } as { page: string; public?: boolean }) => {
    const key = JSON.stringify([tiles, page.page]);
    let made = pages.get(key);
    if (!made) {
      const start = [ENTRY, ...(page.public ? [] : [SHELL]), `${PAGES}/${page.page}.ts`];
      const html = pageHtml(base, importMap, preloaded(start), tiles);
      const csp = [
        "default-src 'self'",
        `script-src 'self' 'sha256-${scriptHash}'`,
        "style-src 'self'",
        `img-src 'self' data:${tiles.url ? ` ${tileOrigin(tiles.url)}` : ''}`,
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; ');
      made = { page: compressed(TYPES['.html'] as string, Buffer.from(html)), csp };
      pages.set(key, made);
    }
    return made;
  };
  // The worker's script carries this version's hash and the list of its files it keeps for offline use
  // (docs/offline.md).
  const precache = [
    ...[...assets.keys()].map((file) => `${base}/${file}`),
    '/manifest.webmanifest',
    ...ICON_SIZES.map((size) => `/icons/icon-${size}.png`),
  ];
  const worker = await serviceWorkerScript(hash, precache);
  const installFiles = new Map<string, Asset>([
    [
      '/manifest.webmanifest',
      compressed('application/manifest+json', Buffer.from(JSON.stringify(manifest()))),
    ],
    ...ICON_SIZES.map((size) => [`/icons/icon-${size}.png`, compressed('image/png', iconPng(size))] as const),
  ]);
  return {
    hash,
    assets,
    pageFor,
    serviceWorker: compressed(TYPES['.js'] as string, Buffer.from(worker)),
    installFiles,
  };
}

let built: Promise<ConsoleBundle> | undefined;

/** The console's files, built on first use and shared by every app in the process (they never change). */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= build('').catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/**
 * Serves a new version of the console from now on, as a deploy of changed files does (its hash, URLs and
 * worker VERSION are new; `release` only tells it apart). For the service worker's update test.
 */
export function deployConsoleBundle(release: string): Promise<ConsoleBundle> {
  built = build(release);
  return built;
}
