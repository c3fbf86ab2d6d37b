/**
 * Every source path the Markdown names exists: a moved or deleted file fails here instead of leaving a
 * newcomer a dead end. The rule, as CONTRIBUTING.md states it ("Docs that name files"):
 * 1. anywhere in the text, a path from the root: `src/…`, `test/…`, `bench/…`, `scripts/…`, `deploy/…`,
 *    `docs/…` (up to the first wildcard or placeholder, `*`, `<`, `{`, `$`: that folder must exist);
 * 2. in backticks, a `.ts` name with a folder, such as `alert-engine/engine.ts` or `web/offline-data.ts`:
 *    found under src/modules/, src/, src/modules/console/ or the root;
 * 3. in backticks, a bare `.ts` name (`engine.ts`): some file in the repository has that name.
 * Plain file reads, no app: it runs in a fraction of a second.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Every file and folder of the checkout (relative, with `/`), and every file's name, read once. */
const tree = new Set<string>();
const fileNames = new Set<string>();
for (const entry of readdirSync(ROOT, { recursive: true, encoding: 'utf8' })) {
  if (/^(?:node_modules|\.git|data|\.scratch[^/]*)(?:\/|$)/.test(entry.split(path.sep).join('/'))) continue;
  const name = entry.split(path.sep).join('/');
  tree.add(name);
  if (statSync(path.join(ROOT, entry)).isFile()) fileNames.add(path.basename(name));
}
const exists = (name: string) => tree.has(path.posix.normalize(name).replace(/\/$/, ''));

/** The Markdown the rule covers: the top-level guides and everything under docs/. */
const MARKDOWN = [
  'README.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'BENCHMARKS.md',
  ...[...tree].filter((name) => name.startsWith('docs/') && name.endsWith('.md')).sort(),
];

/** Where a module-relative name is looked for, in order. */
const BASES = ['src/modules', 'src', 'src/modules/console', '.'];
const TOP = '(?:src|test|bench|scripts|deploy|docs)/';
const ROOTED = new RegExp(`(?<![\\w./@~-])(${TOP}[\\w./*<>{}$-]*)`, 'g');
const CODE_SPAN = /`([^`\n]+)`/g;
const FILE = /^[\w.-]+(?:\/[\w.-]+)*\.ts$/;

/** The part of a rooted path that must exist: up to a wildcard or placeholder, without trailing punctuation. */
function checkable(found: string): string {
  const cut = found.search(/[*<>{}$]/);
  const head = cut === -1 ? found : found.slice(0, found.lastIndexOf('/', cut) + 1);
  return head.replace(/[.,:;]+$/, '');
}

/** The names in a line of Markdown that resolve to nothing in the checkout. */
export function brokenNames(line: string): string[] {
  const broken: string[] = [];
  for (const [, found = ''] of line.matchAll(ROOTED)) {
    const name = checkable(found);
    if (!exists(name)) broken.push(name);
  }
  for (const [, span = ''] of line.matchAll(CODE_SPAN)) {
    const name = span.replace(/(?::\d+|#.*)$/, '');
    if (!FILE.test(name) || new RegExp(`^${TOP}`).test(name)) continue;
    const found = name.includes('/')
      ? BASES.some((base) => exists(path.posix.join(base, name)))
      : fileNames.has(name);
    if (!found) broken.push(name);
  }
  return broken;
}

test('every source path the Markdown names exists', () => {
  const missing: string[] = [];
  for (const file of MARKDOWN) {
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const name of brokenNames(line)) missing.push(`${file}:${index + 1}: ${name}`);
      });
  }
  assert.deepEqual(missing, []);
});

test('the rule catches moved files however they are written, and passes what exists', () => {
  // Names the docs carried after files moved (issue 43), each written one of the ways the rule reads.
  assert.deepEqual(
    brokenNames(
      'see src/modules/alerts/engine-repository.ts, `alerts/report-state.ts`, `claim.ts` and src/http/pagination.ts.',
    ),
    [
      'src/modules/alerts/engine-repository.ts',
      'src/http/pagination.ts',
      'alerts/report-state.ts',
      'claim.ts',
    ],
  );
  assert.deepEqual(
    brokenNames(
      'src/modules/<feature>/routes.ts, test/*.test.ts, `alert-engine/report-state.ts`, `web/offline-data.ts`, ' +
        '`db/statements/alerts.ts`, `engine.ts`, `docs/api.md`, `src/lib/solar.ts:12`',
    ),
    [],
  );
  // Not file names: routes, packages, URLs, commands.
  assert.deepEqual(
    brokenNames('`/v1/farms`, `@turf/area`, https://example.test/src/a.ts, `npx node --test`'),
    [],
  );
});
