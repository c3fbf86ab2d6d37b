/**
 * The console's serving: every page path answers the app's HTML with a strict CSP; its files are served
 * precompressed, cached for good under a content hash, and a page's first load stays within the budget
 * (200 KB of HTML+CSS+JS as compressed on the wire), measured from the real server's answers.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { openTestAppOn, startTestApp, type TestApp } from '../../../test/harness.ts';
import type { ErrorReply } from '../../../test/replies.ts';
import { ASSET_PREFIX, consoleBundle } from './assets.ts';
import { CONSOLE_PAGES } from './pages.ts';
import { pickEncoding } from './routes.ts';
import { importsOf, withoutHeader } from './sources.ts';

/**
 * Every console file together (an upper bound: a page loads only its own page module; the per-page budget
 * below is the one a phone pays; the field app's service worker caches all of it once per version, in
 * brotli where the browser takes it). 200 KB until the LoRaWAN integrations, agent consent, acknowledge and
 * notification pages and the service worker came (211 KB gzip with them, 2026-11-27); 240 KB until the
 * Map page, the grazing plan and the field app's data, queue and sync pages came (242 KB gzip with them,
 * leaflet-geoman counted apart, 2026-11-27 evening); 256 KB until suncalc (7.5 KB gzip, loaded only when a
 * house command's confirmation is checked), the field app's parts as files of their own, ntfy's settings and
 * the paddock import's warnings came (258 KB gzip with them, 2026-11-29); 272 KB until the herd book's
 * pages came (the medicine cabinet, giving a treatment, the holding register and their style sheet: about
 * 14 KB gzip; 273.4 KB with them, 2026-11-29); 274 KB until the phone's shell (the tab bar, settings in
 * sections, the high-contrast option), the person's words and units (the English and Spanish catalogs, the
 * event log's sentences, the subject picker) and the herd book's weights came (296.5 KB gzip with them,
 * 2026-11-29: the Spanish catalog alone is about 6 KB, loaded only by a Spanish reader); 300 KB until issue
 * 47's console came: the chute page (page, style sheet, scale and indicator line readers: 7.7 KB), the
 * calving calendar, and weights, breeding and pedigree on the animal and group pages (about 3.3 KB), 307.4 KB;
 * 308 KB until the first page catalogs (web/messages/<page>.ts: 308.2 KB) and issue 45's page weight, which
 * split what pages need apart so each loads less (the stream's frames, the device types, the house command
 * form's loader, the Map page's style sheet, the catalog loaded by its pages: 310.7 KB gzip, 2026-11-29); then
 * the alerts' own words in English and Spanish (src/domain/alert-words.ts and web/alert-text.ts, about 5.4 KB
 * gzip: every sentence an alert is written in, whole) and every page's words in both languages (each page's
 * catalog loads with its page only): 361.7 KB gzip; then a Spanish sentence for every API error code, the alert
 * terms in a module of their own (rule titles and measures by the settings page without the alert sentences),
 * the animal subject's words, Settings' sections and a chart's drawing as modules loaded when opened or seen
 * (each split costs its own compression): 368.7 KB gzip; 372 KB until the Map page drew the farm as an SVG
 * before loading Leaflet (web/farm-svg.ts, web/map-view.ts) and its panels became a module of their own
 * (web/map-panels.ts), so that its first load is within 80 KB: 370.5 → 379.6 KB gzip, 2026-11-29; 382 KB
 * until the charts named metrics and rules in words (src/domain/metric-terms.ts), a device's commands were said
 * in words (src/domain/command-terms.ts, every command, parameter and choice in English and Spanish, and
 * web/command-history.ts, loaded when scrolled to), the thresholds table checked a rule's lines itself
 * (src/domain/threshold-order.ts) and an untagged animal got words of its own: 390.5 KB gzip, 2026-11-29; 392 KB
 * until the house command form said its hints and cautions in both languages instead of the catalog's English:
 * 393.0 KB gzip, 2026-11-29; 395 KB until each module was served without its opening doc comment (its lines
 * kept empty, sources.ts `withoutHeader`): 372.5 KB gzip, 2026-11-29; 375 KB until the Integrations page's
 * lines and set-up steps and the Fix form's field labels were said in both languages: 375.4 KB gzip, 2026-11-30;
 * 378 KB until the drawing sheet's length and area followed the reader's units (src/domain/display-units.ts
 * `formatLength`, `formatArea`) and the chute card stopped saying one gain twice: 378.4 KB gzip, 2026-12-01;
 * 379 KB until typed numbers were read in the reader's locale (a Spanish decimal comma), areas typed in
 * hectares or acres (web/area-field.ts), the dates inside the server's sentences written as the reader writes
 * them (web/sentence-dates.ts) and alarms and the quiet and intake rules given titles: 381.0 KB gzip, 2026-12-02;
 * 382 KB until a notice's link opened its alert on its farm (pages/alerts.ts), the ntfy topic's refusals were
 * said on its fields in both languages and the delivery log said until when a notice is held: 382.4 KB gzip,
 * 2026-12-02; 383 KB until uPlot was served as its package's minified build (sources.ts `SCRIPT_VENDOR`: 41.6
 * → 22.0 KB gzip), with the Tasks page's due rule shared with the brief (src/domain/tasks.ts) and the Map
 * page's tiles note under the map: 364.4 KB gzip, 2026-12-02.
 */
const PAGE_BUDGET_BYTES = 366 * 1024;

/**
 * What drawing on the Map page adds, loaded only when a person starts drawing or editing a paddock
 * (web/draw.ts: leaflet-geoman, its style sheet, the area measure, the split): counted apart from the whole
 * console above, against its own budget (leaflet-geoman alone is about 65 KB brotli, 77 KB gzip).
 */
const DRAWING_FILES = [
  'src/modules/console/web/map-draw.ts',
  'src/modules/console/web/draw.ts',
  'src/domain/paddock-split.ts',
  'vendor/@geoman-io-leaflet-geoman-free.mjs',
  'vendor/leaflet-geoman.css',
  'vendor/@turf-area.mjs',
  'vendor/@turf-helpers.mjs',
  'vendor/@turf-meta.mjs',
];
const DRAWING_BUDGET_BYTES = 100 * 1024;

let t: TestApp;
let base: string;

before(async () => {
  t = await startTestApp('sqlite');
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});

after(async () => {
  await t?.close();
});

/** One GET over a real socket, the body as it came over the wire (still compressed). */
function wire(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>(
    (resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    },
  );
}

const concretePath = (path: string) => path.replace(/:[a-z]+/g, 'abc123');

test('every console page path answers the HTML page with a CSP, revalidated by its ETag', async () => {
  for (const { path } of CONSOLE_PAGES) {
    const page = await t.app.inject({ url: concretePath(path) });
    assert.equal(page.statusCode, 200, path);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(
      String(page.headers['content-security-policy']),
      /default-src 'self'; script-src 'self' 'sha256-/,
    );
    assert.match(page.body, /<script type="importmap">/);
    const again = await t.app.inject({
      url: concretePath(path),
      headers: { 'if-none-match': String(page.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
  }
});

test('console files are served compressed (br, gzip or plain) and cached for good under their hash', async () => {
  const { hash } = await consoleBundle();
  const url = `${ASSET_PREFIX}/${hash}/src/modules/console/web/app.ts`;
  const br = await wire(url, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.status, 200);
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(String(br.headers['content-type']), /^text\/javascript/);
  const gzip = await wire(url, { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  const plain = await wire(url);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(brotliDecompressSync(br.bytes).toString(), plain.bytes.toString());
  assert.equal(gunzipSync(gzip.bytes).toString(), plain.bytes.toString());
  assert.ok(br.bytes.length < plain.bytes.length / 2);
  // Each file is compressed once per encoding, when first asked for, and kept.
  const asset = (await consoleBundle()).assets.get('src/modules/console/web/app.ts');
  assert.ok(asset);
  const [first, second] = await Promise.all([asset.encoded('br'), asset.encoded('br')]);
  assert.equal(first, second);
  assert.equal(await asset.encoded('br'), first);
  assert.deepEqual(first, br.bytes);
});

test('the domain modules reach the browser with their types stripped (one confirmation rule, not a copy)', async () => {
  const { hash } = await consoleBundle();
  const res = await t.app.inject({ url: `${ASSET_PREFIX}/${hash}/src/domain/confirmation.ts` });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/javascript/);
  assert.match(res.body, /export function needsConfirmation\(/);
  assert.doesNotMatch(res.body, /: ConfirmationNeed/);
});

test('the browser modules are TypeScript served as JavaScript: types stripped, type-only imports gone', async () => {
  const { hash, assets } = await consoleBundle();
  const res = await t.app.inject({ url: `${ASSET_PREFIX}/${hash}/src/modules/console/web/api.ts` });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/javascript/);
  // Types are blanked out in place (so line and column numbers stay the source's).
  assert.match(res.body, /export async function api\s*\(/);
  assert.doesNotMatch(res.body, /Promise<Reply</);
  assert.doesNotMatch(res.body, /from '\.\/api-types\.ts'/);
  // The generated API types are for the type check only: never part of any page.
  assert.equal(assets.has('src/modules/console/web/api-types.ts'), false);
  for (const file of assets.keys()) assert.doesNotMatch(file, /\.js$|\.d\.ts$/, file);
});

test('every console page has its page module (CONSOLE_PAGES and web/pages/index.ts agree)', async () => {
  const { assets } = await consoleBundle();
  const index = assets.get('src/modules/console/web/pages/index.ts')?.identity.toString() ?? '';
  for (const { page } of CONSOLE_PAGES) {
    assert.ok(index.includes(`import('./${page}.ts')`), `${page} has no loader in web/pages/index.ts`);
    assert.ok(assets.has(`src/modules/console/web/pages/${page}.ts`), `${page}.ts is not served`);
  }
});

test('an unknown console file, or one from an older version, is 404 with the Error object', async () => {
  const { hash } = await consoleBundle();
  for (const url of [
    `${ASSET_PREFIX}/${hash}/src/config.ts`,
    `${ASSET_PREFIX}/0000/src/modules/console/web/app.ts`,
  ]) {
    const res = await t.request<ErrorReply>('GET', url);
    assert.equal(res.status, 404, url);
    assert.equal(res.body.error.code, 'not_found');
  }
});

test(`the first load of any page is at most ${PAGE_BUDGET_BYTES / 1024} KB compressed (HTML, CSS and every module)`, async () => {
  const bundle = await consoleBundle();
  for (const encoding of ['br', 'gzip']) {
    const page = await wire('/', { 'accept-encoding': encoding });
    let total = page.bytes.length;
    let drawing = 0;
    // Every file of the console counts, though a page loads only its own page module: an upper bound.
    for (const file of bundle.assets.keys()) {
      const res = await wire(`${ASSET_PREFIX}/${bundle.hash}/${file}`, { 'accept-encoding': encoding });
      assert.equal(res.status, 200, file);
      if (DRAWING_FILES.includes(file)) drawing += res.bytes.length;
      else total += res.bytes.length;
    }
    if (process.env.FARMSTEAD_WEIGHTS)
      console.log(`whole console, ${encoding}: ${(total / 1024).toFixed(1)} KB`);
    assert.ok(total <= PAGE_BUDGET_BYTES, `${encoding}: ${total} bytes`);
    assert.ok(total > 10_000, `${encoding}: ${total} bytes is too little to be the whole console`);
    for (const file of DRAWING_FILES) assert.ok(bundle.assets.has(file), `${file} is served`);
    assert.ok(drawing <= DRAWING_BUDGET_BYTES, `${encoding}: drawing adds ${drawing} bytes`);
  }
});

/**
 * Per page, as compressed with brotli: 80 KB, and 112 KB for a page drawing charts (uPlot is 20 KB of it; no
 * page loads it at first today, nor Leaflet).
 */
const PER_PAGE_BUDGET = { plain: 80 * 1024, charts: 112 * 1024 };

/** The HTML page this test server answers for a page (its map tile setting's; its preloads are the page's). */
function servedPage(bundle: Awaited<ReturnType<typeof consoleBundle>>, page = 'brief') {
  const consolePage = CONSOLE_PAGES.find((p) => p.page === page) ?? { page };
  return bundle.pageFor({ url: t.config.mapTiles, attribution: t.config.mapAttribution }, consolePage).page;
}

/** The files one page loads: the HTML's style sheet and preloaded modules, its page module and what it imports. */
function pageFiles(bundle: Awaited<ReturnType<typeof consoleBundle>>, page: string): Set<string> {
  const html = servedPage(bundle, page).identity.toString();
  const prefix = `${ASSET_PREFIX}/${bundle.hash}/`;
  const linked = [...html.matchAll(/(?:href|src)="([^"]+)"/g)]
    .map((m) => m[1] as string)
    .filter((url) => url.startsWith(prefix))
    .map((url) => url.slice(prefix.length));
  const files = new Set<string>();
  const queue = [...linked, `src/modules/console/web/pages/${page}.ts`];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (files.has(file) || !bundle.assets.has(file)) continue;
    files.add(file);
    if (!file.endsWith('.ts')) continue;
    // Static imports only: pages/index.ts names every page's module for import() on first visit.
    const text = (bundle.assets.get(file)?.identity.toString() ?? '').replace(/\bimport\(/g, '');
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith('.')) {
        const name = specifier.replace('/', '-');
        queue.push(`vendor/${name}.mjs`, `vendor/${name}.css`);
      } else queue.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
    }
  }
  return files;
}

/** What a browser downloads for these files and the page's HTML, with brotli (as the server compresses them). */
async function brotliBytes(
  bundle: Awaited<ReturnType<typeof consoleBundle>>,
  files: Set<string>,
  page: string,
): Promise<number> {
  const assets = [servedPage(bundle, page), ...[...files].map((f) => bundle.assets.get(f))];
  const sizes = await Promise.all(assets.map(async (asset) => (await asset?.encoded('br'))?.length ?? 0));
  return sizes.reduce((sum, n) => sum + n, 0);
}

test('each page loads at most 80 KB compressed (112 KB with charts): its own modules, not every page', async () => {
  const bundle = await consoleBundle();
  for (const { page } of CONSOLE_PAGES) {
    const files = pageFiles(bundle, page);
    const bytes = await brotliBytes(bundle, files, page);
    const charts = files.has('vendor/uplot.mjs');
    const budget = charts ? PER_PAGE_BUDGET.charts : PER_PAGE_BUDGET.plain;
    assert.ok(bytes <= budget, `${page}: ${bytes} bytes (brotli) is over ${budget}`);
    assert.ok(files.has(`src/modules/console/web/pages/${page}.ts`) && bytes > 10_000, page);
    // A chart's library (uPlot) and a paddock's small map (Leaflet) load when they come into view
    // (web/chart-plot.ts, web/paddock-outline.ts), never with a page; the chart's figure and summary do.
    // Settings' usage chart loads when its section is opened (settings-usage.ts), not with the page.
    if (['animal', 'device'].includes(page)) {
      assert.ok(files.has('src/modules/console/web/chart.ts'), `${page} shows charts`);
      assert.ok(
        !charts && !files.has('src/modules/console/web/chart-plot.ts'),
        `${page} loads uPlot at first`,
      );
    }
    if (page === 'settings') assert.ok(!charts, 'settings loads no chart code at first');
    // The Map page draws the farm as an SVG first; Leaflet comes with the first pan, zoom or drawing.
    if (page === 'map') {
      assert.ok(files.has('src/modules/console/web/farm-svg.ts'), 'the map page draws the farm');
      assert.ok(!files.has('vendor/leaflet.mjs'), 'the map page loads Leaflet at first');
    }
    if (page === 'paddocks') {
      assert.ok(files.has('src/modules/console/web/map.ts'), 'paddocks shows small maps');
      assert.ok(!files.has('vendor/leaflet.mjs'), 'paddocks loads Leaflet at first');
    }
    // Drawing tools come when a person starts drawing, never with a page.
    for (const file of DRAWING_FILES) assert.ok(!files.has(file), `${page} loads ${file} at first`);
  }
});

test('the sign-in page loads only what it needs: the app, its page and the form, not the signed-in shell', async () => {
  const bundle = await consoleBundle();
  const files = pageFiles(bundle, 'sign-in');
  const bytes = await brotliBytes(bundle, files, 'sign-in');
  for (const file of [
    'shell.ts',
    'offline.ts',
    'command-form.ts',
    'stream.ts',
    'farm-form.ts',
    'records.ts',
  ]) {
    assert.ok(!files.has(`src/modules/console/web/${file}`), `sign-in loads ${file}`);
  }
  // 20 until the person's words and units came (issue 45: the catalog, its reader and the units the form may
  // show: i18n.ts, reader-hook.ts, message-format.ts, messages/en.ts, display-units.ts); 21 with them.
  assert.ok(files.size <= 22, `sign-in loads ${files.size} files: ${[...files].join(', ')}`);
  assert.ok(bytes <= 40 * 1024, `sign-in: ${bytes} bytes`);
  // A signed-in page preloads the shell with it; the brief does not preload another page's modules.
  const brief = servedPage(bundle, 'brief').identity.toString();
  assert.match(brief, /modulepreload" href="[^"]+\/web\/shell\.ts"/);
  assert.doesNotMatch(brief, /command-form\.ts/);
});

test('the Map page loads its SVG of the farm within 80 KB brotli; Leaflet, the panels and the drawing tools come later, not preloaded', async () => {
  const bundle = await consoleBundle();
  const files = pageFiles(bundle, 'map');
  const bytes = await brotliBytes(bundle, files, 'map');
  assert.ok(files.has('src/modules/console/web/farm-svg.ts'));
  assert.ok(bytes <= PER_PAGE_BUDGET.plain, `map: ${bytes} bytes`);
  const html = servedPage(bundle, 'map').identity.toString();
  const preloaded = (file: string) =>
    html.includes(`rel="modulepreload" href="${ASSET_PREFIX}/${bundle.hash}/${file}"`);
  assert.ok(preloaded('src/modules/console/web/api.ts'), 'the shared modules are preloaded');
  const later = [
    'src/modules/console/web/farm-map.ts',
    'vendor/leaflet.mjs',
    'vendor/leaflet.css',
    'src/modules/console/web/map-panels.ts',
    'src/modules/console/web/map-import.ts',
  ];
  for (const file of [...DRAWING_FILES, ...later]) {
    assert.ok(!files.has(file), `${file} comes with the page`);
    assert.ok(!preloaded(file), `${file} is preloaded`);
    assert.ok(bundle.assets.has(file), `${file} is served`);
  }
  // leaflet-geoman patches Leaflet: served as a module that imports Leaflet first.
  const geoman = bundle.assets.get('vendor/@geoman-io-leaflet-geoman-free.mjs')?.identity.toString() ?? '';
  assert.match(geoman, /^import L from 'leaflet';/);
  assert.doesNotMatch(geoman, /sourceMappingURL/);
});

test('importsOf finds static, re-exported and dynamic imports', () => {
  const code = `import { a } from './a.js';\nimport './b.css';\nexport { c } from "../c.ts";\nconst d = () => import('./d.js');`;
  assert.deepEqual(importsOf(code).sort(), ['../c.ts', './a.js', './b.css', './d.js']);
});

test('a module is served without its opening doc comment, line for line; the rest of its code as written', async () => {
  const code =
    "/**\n * What this file is.\n */\nimport { a } from './a.ts';\n/** a doc */\nexport const b = a;\n";
  assert.equal(withoutHeader(code), "\n\n\nimport { a } from './a.ts';\n/** a doc */\nexport const b = a;\n");
  const plain = "import { a } from './a.ts';\n/** a doc */\nexport const b = a;\n";
  assert.equal(withoutHeader(plain), plain);
  // The served app.ts: its header gone, its lines where the source has them.
  const bundle = await consoleBundle();
  const served = bundle.assets.get('src/modules/console/web/app.ts');
  assert.ok(served, 'app.ts is served');
  const source = await readFile(path.join(import.meta.dirname, 'web/app.ts'), 'utf8');
  const text = gunzipSync(await served.encoded('gzip')).toString('utf8');
  assert.ok(source.startsWith('/**') && !text.trimStart().startsWith('/**'), 'the header is left out');
  assert.equal(text.split('\n').length, source.split('\n').length, 'line for line');
});

test('pickEncoding prefers brotli, then gzip, and respects q=0', () => {
  assert.equal(pickEncoding('gzip, deflate, br'), 'br');
  assert.equal(pickEncoding('gzip'), 'gzip');
  assert.equal(pickEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(pickEncoding(undefined), null);
  assert.equal(pickEncoding('identity'), null);
});

test('the page carries the map tiles and attribution in meta tags, and its CSP allows the tile origin only', async () => {
  const page = await t.app.inject({ url: '/' });
  assert.match(
    page.body,
    /<meta name="farmstead-map-tiles" content="https:\/\/tile\.openstreetmap\.org\/\{z\}\/\{x\}\/\{y\}\.png">/,
  );
  assert.match(page.body, /<meta name="farmstead-map-attribution" content="© OpenStreetMap contributors">/);
  assert.match(
    String(page.headers['content-security-policy']),
    /img-src 'self' data: https:\/\/tile\.openstreetmap\.org;/,
  );
  const own = await openTestAppOn(t, {
    mapTiles: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png?key=a&b="c"',
    mapAttribution: '<b>Example</b> & co',
  });
  try {
    const res = await own.app.inject({ url: '/' });
    assert.match(
      res.body,
      /content="https:\/\/\{s\}\.tiles\.example\.org\/\{z\}\/\{x\}\/\{y\}\.png\?key=a&amp;b=&quot;c&quot;"/,
    );
    assert.match(res.body, /content="&lt;b&gt;Example&lt;\/b&gt; &amp; co"/);
    assert.match(
      String(res.headers['content-security-policy']),
      /img-src 'self' data: https:\/\/\*\.tiles\.example\.org;/,
    );
  } finally {
    await own.close();
  }
  const none = await openTestAppOn(t, { mapTiles: null, mapAttribution: '' });
  try {
    const res = await none.app.inject({ url: '/' });
    assert.match(res.body, /<meta name="farmstead-map-tiles" content="none">/);
    assert.match(String(res.headers['content-security-policy']), /img-src 'self' data:;/);
  } finally {
    await none.close();
  }
});
