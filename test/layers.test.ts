/**
 * The import graph of src/ keeps its shape: no circles, and no arrow back up. Every non-test .ts file's
 * imports are read (static, `import type`, `export … from` and dynamic `import()`: a type-only circle is
 * still a circle) and resolved to files. The layers, lowest first:
 *  - lib/     helpers that know nothing of Farmstead's facts: imports nothing else of src/;
 *  - domain/  the registry the spec defines once: only lib/;
 *  - db/      the database: lib/, domain/ and the config's type;
 *  - calls/   what a call carries whatever its transport (callers, the key cache, input rules, idempotency
 *             keys): lib/, domain/ and db/;
 *  - http/ and modules/ above them, app.ts and cli/ on top.
 * http/ is the framework side: of modules/, workers/ and cli/ only what registers routes imports it
 * (HTTP_IMPORTS_ALLOWED says who else, and why).
 * Module folders (src/modules/<feature>/) point one way too: read folder by folder, the same imports form
 * no circle, so a lower module tells a higher one something through an event or a hook, never an import.
 * ARCHITECTURE.md ("Where things live") says where each piece sits.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

/** Every non-test .ts file under src/, as a path relative to the repository (src/…). */
function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => path.posix.join('src', file.split(path.sep).join('/')))
    .sort();
}

/** The src file `spec`, written in `file`, names; null for a package or a node: builtin (not ours). */
function resolveImport(file: string, spec: string): string | null {
  return spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : null;
}

/** file → the src files it imports (relative specifiers only: packages and node: builtins are not ours). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles.flatMap((ref) => resolveImport(file, ref.fileName) ?? []);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** One path round a circle, for the failure message: a → b → … → a. */
function describeCircle(graph: Map<string, string[]>, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const seen = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const trail = [start];
        for (let at = file; at !== start; at = seen.get(at)!) trail.splice(1, 0, at);
        const round = [...trail, start].join(' → ');
        return trail.length < component.length
          ? `${round} (one of the circles among ${component.join(', ')})`
          : round;
      }
      if (!seen.has(target)) {
        seen.set(target, file);
        queue.push(target);
      }
    }
  }
  return component.join(', ');
}

/** Which module folder a file is in (src/modules/<folder>/…), or null for a file outside src/modules/. */
function moduleOf(file: string): string | null {
  return /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;
}

/**
 * Module folder → each folder its files import, with one import that makes the edge (the first in file
 * order), so a circle's message can say which line to change.
 */
function folderGraph(files: Map<string, string[]>): Map<string, Map<string, string>> {
  const folders = new Map<string, Map<string, string>>();
  for (const [file, targets] of files) {
    const from = moduleOf(file);
    if (from === null) continue;
    const edges = folders.get(from) ?? new Map<string, string>();
    folders.set(from, edges);
    for (const target of targets) {
      const to = moduleOf(target);
      if (to !== null && to !== from && !edges.has(to)) edges.set(to, `${file} → ${target}`);
    }
  }
  return folders;
}

/** The circles between module folders: each folder of one, and every edge inside it with its import. */
function folderCircles(folders: Map<string, Map<string, string>>): string[] {
  const adjacency = new Map([...folders].map(([folder, edges]) => [folder, [...edges.keys()].sort()]));
  return circles(adjacency).map((component) => {
    const members = new Set(component);
    const edges = component.flatMap((from) =>
      [...(folders.get(from) ?? [])]
        .filter(([to]) => members.has(to))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([to, example]) => `${from} → ${to} (${example})`),
    );
    return `${component.join(', ')}: ${edges.join('; ')}`;
  });
}

/** Which top-level part of src/ a file is in: lib, domain, db, calls, http, modules, cli, workers, or the file. */
function layerOf(file: string): string {
  return file.split('/')[1]!.replace(/\.ts$/, '');
}

/** What each lower layer may import besides itself. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  lib: [],
  domain: ['lib'],
  db: ['lib', 'domain', 'config'],
  calls: ['lib', 'domain', 'db'],
};

/**
 * Outside http/ itself, app.ts and openapi.ts (which build the app and its document), who may import http/.
 * A module's routes.ts (and its routes/ folder, when split by responsibility) registers its routes (auth
 * hooks, schema pieces, validators): anything of http/. The
 * rest, each with its reason; everything else under modules/, workers/ and cli/ gets what it needs from
 * below (lib/, domain/, db/, calls/).
 */
const HTTP_IMPORTS_ALLOWED: readonly { from: RegExp; to: string; why: string }[] = [
  {
    from: /^src\/modules\/[^/]+\/schemas\.ts$/,
    to: 'src/http/schemas.ts',
    why: 'the wire shapes routes declare, built from the shared schema pieces',
  },
  {
    from: /^src\/modules\/mcp\/(tool|tools\/[^/]+)\.ts$/,
    to: 'src/http/schemas.ts',
    why: "MCP tools' schemas, built from the same pieces (Nullable, ListOf) so they match the REST shapes",
  },
  {
    from: /^src\/cli\/worker\.ts$/,
    to: 'src/http/logging.ts',
    why: "the worker logs through Fastify's logger with the server's options, so its lines look the same",
  },
];

/** Whether `file` may import `target` as far as http/ goes (only files of modules/, workers/ and cli/ are asked). */
function mayImportHttp(file: string, target: string): boolean {
  if (layerOf(target) !== 'http' || !['modules', 'workers', 'cli'].includes(layerOf(file))) return true;
  if (/^src\/modules\/[^/]+\/routes(\.ts|\/[^/]+\.ts)$/.test(file)) return true;
  return HTTP_IMPORTS_ALLOWED.some((rule) => rule.from.test(file) && rule.to === target);
}

const graph = importGraph();

test('the import graph is read: every src file, its imports resolved to files that exist', () => {
  assert.ok(graph.size > 200, `only ${graph.size} source files found`);
  assert.deepEqual(graph.get('src/domain/errors.ts'), ['src/domain/record-kinds.ts']);
  for (const [file, targets] of graph) {
    for (const target of targets)
      assert.ok(graph.has(target), `${file} imports ${target}, which is not a file`);
  }
});

test('no import circle in src/', () => {
  const found = circles(graph);
  assert.deepEqual(
    found.map((c) => describeCircle(graph, c)),
    [],
    'import circles: break each one (move the shared piece down, or inject it)',
  );
});

test('no import circle between module folders (src/modules/*)', () => {
  assert.deepEqual(
    folderCircles(folderGraph(graph)),
    [],
    'folders importing each other: the lower one publishes an event, is handed a hook (buildApp), or the shared piece moves down',
  );
});

test('lib, domain, db and calls import nothing above them (never modules/ or http/)', () => {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const allowed = MAY_IMPORT[layerOf(file)];
    if (!allowed) continue;
    for (const target of targets) {
      const layer = layerOf(target);
      if (layer !== layerOf(file) && !allowed.includes(layer)) upward.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('services, repositories, workers and the CLI import nothing of http/ (the framework side)', () => {
  const framework: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) if (!mayImportHttp(file, target)) framework.push(`${file} → ${target}`);
  }
  assert.deepEqual(
    framework,
    [],
    'move the framework-free piece below http/ (lib/ if it knows no Farmstead fact, else calls/ or db/)',
  );
});

/**
 * Every src file `from` reaches (itself included), following `importsOf`: by default every import the graph
 * holds (static, type-only and dynamic).
 */
function reach(from: string, importsOf = (file: string) => graph.get(file) ?? []): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const target of importsOf(file)) visit(target);
  };
  visit(from);
  return seen;
}

/**
 * The CLI's reading commands (`accounts list`, and the `--account` check of `keys`, `farms` and `people`) load
 * about 460 modules; when the account lookups sat beside `createAccount`, which seeds a sample farm through
 * most of the service, they loaded about 1,080 and took half as long again to start.
 */
test("the CLI's account lookups reach no sample-farm seeding", () => {
  for (const file of ['src/modules/accounts/lookup.ts', 'src/cli/database.ts']) {
    const seeding = [...reach(file)].filter((target) => target.startsWith('src/modules/sample/'));
    assert.deepEqual(seeding, [], `${file} reaches the sample farm's seeding`);
  }
});

/** The src files `file` loads before it runs: static value imports only (no `import type`, no `import()`). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) => {
    const isImport = ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly;
    const isExport = ts.isExportDeclaration(statement) && !statement.isTypeOnly;
    const spec = isImport || isExport ? statement.moduleSpecifier : undefined;
    return spec && ts.isStringLiteral(spec) ? (resolveImport(file, spec.text) ?? []) : [];
  });
}

/**
 * `--help` and a mistyped command answer at once: the CLI's own files load at start, and each command imports
 * the service it runs when it runs (33 modules for `--help`, against 389 when `backup` brought the PostgreSQL
 * driver's module and Kysely with it).
 */
test('the CLI loads none of the service before a command runs', () => {
  const service = /^src\/(app\.ts|modules\/|db\/|http\/|calls\/|workers\/)/;
  const loaded = [...reach('src/main.ts', valueImports)];
  assert.ok(loaded.includes('src/cli/program.ts') && loaded.includes('src/cli/backup.ts'), 'the CLI is read');
  assert.deepEqual(
    loaded.filter((file) => service.test(file)),
    [],
  );
});

test('the checks catch what they look for', () => {
  const circular = new Map([
    ['src/a.ts', ['src/b.ts']],
    ['src/b.ts', ['src/c.ts']],
    ['src/c.ts', ['src/a.ts']],
    ['src/d.ts', ['src/a.ts']],
  ]);
  const [only, ...rest] = circles(circular);
  assert.deepEqual([only, rest], [['src/a.ts', 'src/b.ts', 'src/c.ts'], []]);
  assert.equal(describeCircle(circular, only!), 'src/a.ts → src/b.ts → src/c.ts → src/a.ts');
  assert.deepEqual(circles(new Map([['src/a.ts', ['src/a.ts']]])), [['src/a.ts']]);
  // Files that form no circle among themselves, in folders that do: a/x → b/y → a/z.
  const folders = folderGraph(
    new Map([
      ['src/modules/a/x.ts', ['src/modules/b/y.ts', 'src/modules/a/z.ts']],
      ['src/modules/b/y.ts', ['src/modules/a/z.ts', 'src/lib/json.ts']],
      ['src/modules/a/z.ts', []],
      ['src/modules/c/w.ts', ['src/modules/a/z.ts']],
      ['src/lib/json.ts', []],
    ]),
  );
  assert.deepEqual(folderCircles(folders), [
    'a, b: a → b (src/modules/a/x.ts → src/modules/b/y.ts); b → a (src/modules/b/y.ts → src/modules/a/z.ts)',
  ]);
  assert.deepEqual(folderCircles(new Map([['a', new Map([['b', 'x']])]])), []);
  assert.equal(layerOf('src/db/tables/foundation.ts'), 'db');
  assert.equal(layerOf('src/config.ts'), 'config');
  assert.ok(!mayImportHttp('src/modules/keys/service.ts', 'src/http/auth.ts'));
  assert.ok(!mayImportHttp('src/modules/mcp/tool.ts', 'src/http/validation.ts'));
  assert.ok(!mayImportHttp('src/workers/jobs.ts', 'src/http/schemas.ts'));
  assert.ok(!mayImportHttp('src/cli/serve.ts', 'src/http/logging.ts'));
  assert.ok(mayImportHttp('src/modules/keys/routes.ts', 'src/http/auth.ts'));
  assert.ok(mayImportHttp('src/modules/keys/schemas.ts', 'src/http/schemas.ts'));
  assert.ok(mayImportHttp('src/modules/keys/service.ts', 'src/calls/key-cache.ts'));
  assert.ok(mayImportHttp('src/app.ts', 'src/http/input-guard.ts'));
});
