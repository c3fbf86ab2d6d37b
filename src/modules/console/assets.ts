/**
 * The console's files as the browser receives them, built once per process on first use (no build step):
 * the browser modules under web/ and every src/ module they import (the domain rules are shared this way),
 * all TypeScript with their types stripped by Node's own `stripTypeScriptTypes` (erasable syntax only, so
 * the JavaScript is exactly the source less its types and its opening doc comment, line for line; type-only
 * imports, such as web/api-types.ts, vanish and are never served), and the few library modules from
 * node_modules named in VENDOR, mapped for the browser by an import map.
 *
 * Every file is served under /console/assets/<hash>/, where the hash covers all the files, so each answer
 * can be cached for a year (`immutable`): a changed file is a new hash and a new URL. Each file is
 * compressed (brotli, gzip) the first time a browser asks for it that way, on zlib's thread pool, and kept;
 * the HTML page itself revalidates with its ETag.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlibConstants } from 'node:zlib';
import { ICON_SIZES, iconPng, manifest, THEME_COLOR } from './icons.ts';

/** The repository root: asset paths are repository paths, so relative imports resolve alike on both sides. */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const ENTRY = 'src/modules/console/web/app.ts';
/** The service worker: served at /sw.js (its scope is the whole console), not under the hashed prefix. */
const SERVICE_WORKER = 'src/modules/console/web/sw.ts';
/**
 * The page's code the worker runs too (sending the queue, for Background Sync with no console open): put
 * before the worker's own, its `export`s made plain declarations. It may import types only.
 */
const WORKER_SHARES = ['src/modules/console/web/queue-send.ts'];
const STYLES = 'src/modules/console/web/styles.css';
/** Style sheets of a few pages, linked by the module that needs them (web/herd-book.ts), not by the page. */
const PAGE_STYLES = [
  'src/modules/console/web/herd-book.css',
  'src/modules/console/web/chute.css',
  // The Map page's, linked by web/map-view.ts (Leaflet's by web/farm-map.ts).
  'src/modules/console/web/map.css',
];
/** The signed-in shell, which app.ts loads for every page needing a session (so not the sign-in page). */
const SHELL = 'src/modules/console/web/shell.ts';
const PAGES = 'src/modules/console/web/pages';

/** Library modules the browser may import by name: the import map's entries, each a file in node_modules. */
const VENDOR: Record<string, string> = {
  preact: 'preact',
  'preact/hooks': 'preact/hooks',
  htm: 'htm',
  // The ESM build (the package's `main` is CommonJS); imported only by web/chart.ts, so only chart pages load it.
  uplot: 'uplot/dist/uPlot.esm.js',
  // Leaflet 1.9 ships no minified ESM build: its minified UMD file is served as a module (see UMD_VENDOR);
  // imported only by web/map.ts (the paddocks page).
  leaflet: 'leaflet/dist/leaflet.js',
  // IndexedDB with promises (web/offline.ts: the field app's data and queue on the phone); one ESM file.
  idb: 'idb/build/index.js',
  // Drawing and editing paddocks on the map: loaded by web/draw.ts only when a person starts drawing.
  '@geoman-io/leaflet-geoman-free': '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.min.js',
  // The drawn area while drawing (the geodesic area the server computes acres with), with its two imports.
  '@turf/area': '@turf/area/dist/esm/index.js',
  '@turf/helpers': '@turf/helpers/dist/esm/index.js',
  '@turf/meta': '@turf/meta/dist/esm/index.js',
  // Sunrise and sunset, for asking before doors open after dark (domain/confirmation.ts, lib/solar.ts): one
  // ES module with no imports; loaded when a command is sent (web/command-form.ts).
  suncalc: 'suncalc/index.js',
};

/**
 * Vendor files in UMD/CommonJS form: served as an ES module that hands the UMD wrapper a CommonJS
 * `module.exports` and exports it as the default (so `import L from 'leaflet'` works, no global).
 */
const UMD_VENDOR = new Set(['leaflet']);

/**
 * Leaflet plugins written as a script that patches the global `L`: served as a module that imports Leaflet
 * first and names it `L` for the script (so the plugin runs after Leaflet, whichever loads first).
 */
const LEAFLET_PLUGINS = new Set(['@geoman-io/leaflet-geoman-free']);

function asModule(name: string, code: string): string {
  const body = code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  if (LEAFLET_PLUGINS.has(name)) return `import L from 'leaflet';\n${body}\nexport default L;\n`;
  if (!UMD_VENDOR.has(name)) return code;
  return `const module = { exports: {} };\nconst exports = module.exports;\n${body}\nexport default module.exports;\n`;
}

/** Library style sheets, served at vendor/<name> and linked by the module that needs them (web/chart-plot.ts). */
const VENDOR_STYLES: Record<string, string> = {
  'uplot.css': 'uplot/dist/uPlot.min.css',
  'leaflet.css': 'leaflet/dist/leaflet.css',
  'leaflet-geoman.css': '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css',
};

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

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.ts': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

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

/** Module specifiers a browser module imports: static (`import … from`, `export … from`, `import '…'`) and `import('…')`. */
export function importsOf(code: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1] as string);
  return found;
}

/** A module's code as part of the worker's classic script: its exported declarations made plain ones. */
function workerPart(file: string, code: string): string {
  const plain = code.replace(/^export (?=(?:async )?function |const |let |class )/gm, '');
  if (/^\s*(?:export|import)\b/m.test(plain))
    throw new Error(`${file}: the worker cannot take its imports or exports`);
  return plain;
}

async function loadSource(file: string): Promise<string> {
  const text = await readFile(path.join(ROOT, file), 'utf8');
  return file.endsWith('.ts') ? withoutHeader(stripTypeScriptTypes(text, { mode: 'strip' })) : text;
}

/**
 * A module's opening doc comment (what the file is, for the people reading the source) left out of what the
 * browser downloads: it is most of a small module's weight. Its lines stay as empty lines, so a line number
 * in a browser's error is still the source's. Only a comment that opens the file; the code is untouched.
 */
export function withoutHeader(code: string): string {
  const header = /^\s*\/\*\*[\s\S]*?\*\//.exec(code);
  if (!header) return code;
  return '\n'.repeat(header[0].split('\n').length - 1) + code.slice(header[0].length);
}

/**
 * A vendor file's path: resolved as Node would, or, for a file its package's `exports` does not list
 * (leaflet-geoman exports only its unminified build), found under the package's own folder.
 */
function vendorFile(specifier: string): string {
  try {
    return fileURLToPath(import.meta.resolve(specifier));
  } catch {
    const parts = specifier.split('/');
    const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    let dir = path.dirname(fileURLToPath(import.meta.resolve(name)));
    while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    return path.join(dir, specifier.slice(name.length + 1));
  }
}

/** Walks the modules reachable from the entry: every file in src/ they import, and the vendor modules. */
async function collectSources(): Promise<Map<string, { type: string; text: string }>> {
  const files = new Map<string, { type: string; text: string }>();
  const vendorPath = (name: string) => `vendor/${name.replace('/', '-')}.mjs`;
  for (const [name, specifier] of Object.entries(VENDOR)) {
    const file = vendorFile(specifier);
    const text = asModule(name, await readFile(file, 'utf8'));
    files.set(vendorPath(name), { type: TYPES['.mjs'] as string, text });
  }
  for (const [name, specifier] of Object.entries(VENDOR_STYLES)) {
    const file = vendorFile(specifier);
    files.set(`vendor/${name}`, { type: TYPES['.css'] as string, text: await readFile(file, 'utf8') });
  }
  const queue = [ENTRY];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (files.has(file)) continue;
    const text = await loadSource(file);
    files.set(file, { type: TYPES[path.extname(file)] as string, text });
    for (const specifier of importsOf(text)) {
      if (VENDOR[specifier]) continue;
      if (!specifier.startsWith('.')) {
        throw new Error(`${file} imports "${specifier}", which the console does not serve (see VENDOR)`);
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (!target.startsWith('src/')) throw new Error(`${file} imports ${specifier}, outside src/`);
      queue.push(target);
    }
  }
  for (const sheet of [STYLES, ...PAGE_STYLES]) {
    files.set(sheet, { type: TYPES['.css'] as string, text: await readFile(path.join(ROOT, sheet), 'utf8') });
  }
  return files;
}

/**
 * The files `start` loads before running: each one and what it imports statically, in the order found
 * (`import('…')` is left out: it loads when called).
 */
function staticClosure(sources: ReadonlyMap<string, { text: string }>, start: string[]): string[] {
  const found = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const source = sources.get(file);
    if (found.has(file) || !source) continue;
    found.add(file);
    if (!file.endsWith('.ts')) continue;
    for (const specifier of importsOf(source.text.replace(/\bimport\(/g, ''))) {
      queue.push(
        specifier.startsWith('.')
          ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))
          : `vendor/${specifier.replace('/', '-')}.mjs`,
      );
    }
  }
  return [...found];
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
    imports: Object.fromEntries(
      Object.keys(VENDOR).map((name) => [name, `${base}/vendor/${name.replace('/', '-')}.mjs`]),
    ),
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
  // The worker is a classic script (no imports), so its own file is read, stripped and versioned here, with
  // the list of this version's files it keeps for offline use (docs/offline.md).
  const precache = [
    ...[...assets.keys()].map((file) => `${base}/${file}`),
    '/manifest.webmanifest',
    ...ICON_SIZES.map((size) => `/icons/icon-${size}.png`),
  ];
  const shared = await Promise.all(
    WORKER_SHARES.map(async (file) => workerPart(file, await loadSource(file))),
  );
  const worker = `const VERSION = '${hash}';\nconst PRECACHE = ${JSON.stringify(precache)};\n${shared.join('\n')}\n${await loadSource(SERVICE_WORKER)}`;
  if (importsOf(worker).length > 0) throw new Error(`${SERVICE_WORKER} must not import anything`);
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
