/**
 * The console's source files, as the browser is to receive them: which files there are (the entry, the
 * signed-in shell, the pages, the style sheets and the library modules of VENDOR), each read from the
 * repository with its TypeScript types stripped by Node's own `stripTypeScriptTypes` (erasable syntax only,
 * so the JavaScript is exactly the source less its types and its opening doc comment, line for line;
 * type-only imports, such as web/api-types.ts, vanish and are never served), the imports between them, and
 * the service worker's script. assets.ts versions, compresses and serves them.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: asset paths are repository paths, so relative imports resolve alike on both sides. */
const ROOT = path.resolve(import.meta.dirname, '../../..');
export const ENTRY = 'src/modules/console/web/app.ts';
/** The service worker: served at /sw.js (its scope is the whole console), not under the hashed prefix. */
const SERVICE_WORKER = 'src/modules/console/web/sw.ts';
/**
 * The page's code the worker runs too (sending the queue, for Background Sync with no console open): put
 * before the worker's own, its `export`s made plain declarations. It may import types only.
 */
const WORKER_SHARES = ['src/modules/console/web/queue-send.ts'];
export const STYLES = 'src/modules/console/web/styles.css';
/** Style sheets of a few pages, linked by the module that needs them (web/herd-book.ts), not by the page. */
const PAGE_STYLES = [
  'src/modules/console/web/herd-book.css',
  'src/modules/console/web/chute.css',
  // The Map page's, linked by web/map-view.ts (Leaflet's by web/farm-map.ts).
  'src/modules/console/web/map.css',
];
/** The signed-in shell, which app.ts loads for every page needing a session (so not the sign-in page). */
export const SHELL = 'src/modules/console/web/shell.ts';
export const PAGES = 'src/modules/console/web/pages';

/** Library modules the browser may import by name: the import map's entries, each a file in node_modules. */
export const VENDOR: Record<string, string> = {
  preact: 'preact',
  'preact/hooks': 'preact/hooks',
  htm: 'htm',
  // The package's minified build, a script defining `uPlot` (see SCRIPT_VENDOR): its ES module build is not
  // minified (41.6 KB gzip against 22.0); imported only by web/chart-plot.ts, so only charts load it.
  uplot: 'uplot/dist/uPlot.iife.min.js',
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

/** Vendor files that are a script declaring one variable: a module's `var` is its own, exported as the default. */
const SCRIPT_VENDOR: Record<string, string> = { uplot: 'uPlot' };

/**
 * Leaflet plugins written as a script that patches the global `L`: served as a module that imports Leaflet
 * first and names it `L` for the script (so the plugin runs after Leaflet, whichever loads first).
 */
const LEAFLET_PLUGINS = new Set(['@geoman-io/leaflet-geoman-free']);

function asModule(name: string, code: string): string {
  const body = code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  if (LEAFLET_PLUGINS.has(name)) return `import L from 'leaflet';\n${body}\nexport default L;\n`;
  if (SCRIPT_VENDOR[name]) return `${body}\nexport default ${SCRIPT_VENDOR[name]};\n`;
  if (!UMD_VENDOR.has(name)) return code;
  return `const module = { exports: {} };\nconst exports = module.exports;\n${body}\nexport default module.exports;\n`;
}

/** Library style sheets, served at vendor/<name> and linked by the module that needs them (web/chart-plot.ts). */
const VENDOR_STYLES: Record<string, string> = {
  'uplot.css': 'uplot/dist/uPlot.min.css',
  'leaflet.css': 'leaflet/dist/leaflet.css',
  'leaflet-geoman.css': '@geoman-io/leaflet-geoman-free/dist/leaflet-geoman.css',
};

export const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.ts': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/** A file as served: its content type and text. */
export interface Source {
  type: string;
  text: string;
}

/** Where a library module of VENDOR is served, under the bundle's prefix (`preact/hooks` → vendor/preact-hooks.mjs). */
export function vendorPath(name: string): string {
  return `vendor/${name.replace('/', '-')}.mjs`;
}

/** The repository path a relative specifier in `file` names (`./ui.ts` in web/app.ts → src/modules/console/web/ui.ts). */
function importTarget(file: string, specifier: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
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
  return file.endsWith('.ts') ? withoutHeader(stripTypes(text)) : text;
}

/**
 * `stripTypeScriptTypes`, without the ExperimentalWarning Node writes to the log on its first call: the API is
 * marked experimental, but it is the type stripping Node itself runs the server's code with, on the Node
 * version package.json pins, and the console's tests load every module through it. The warning told an
 * operator nothing they could act on, in the log of every server whose console was opened. Only that warning
 * is held back: any other goes out as before.
 */
function stripTypes(text: string): string {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (!message.startsWith('stripTypeScriptTypes is an experimental feature'))
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return stripTypeScriptTypes(text, { mode: 'strip' });
  } finally {
    process.emitWarning = emitWarning;
  }
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
export async function collectSources(): Promise<Map<string, Source>> {
  const files = new Map<string, Source>();
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
      const target = importTarget(file, specifier);
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
export function staticClosure(sources: ReadonlyMap<string, { text: string }>, start: string[]): string[] {
  const found = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const source = sources.get(file);
    if (found.has(file) || !source) continue;
    found.add(file);
    if (!file.endsWith('.ts')) continue;
    for (const specifier of importsOf(source.text.replace(/\bimport\(/g, ''))) {
      queue.push(specifier.startsWith('.') ? importTarget(file, specifier) : vendorPath(specifier));
    }
  }
  return [...found];
}

/**
 * The service worker's classic script (no imports): this version's hash as its VERSION, the files it keeps
 * for offline use, the page code it shares (WORKER_SHARES) and its own.
 */
export async function serviceWorkerScript(hash: string, precache: string[]): Promise<string> {
  const shared = await Promise.all(
    WORKER_SHARES.map(async (file) => workerPart(file, await loadSource(file))),
  );
  const worker = `const VERSION = '${hash}';\nconst PRECACHE = ${JSON.stringify(precache)};\n${shared.join('\n')}\n${await loadSource(SERVICE_WORKER)}`;
  if (importsOf(worker).length > 0) throw new Error(`${SERVICE_WORKER} must not import anything`);
  return worker;
}
