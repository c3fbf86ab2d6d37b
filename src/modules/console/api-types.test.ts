/**
 * The console's API types (web/api-types.ts) are generated from the app's OpenAPI document and committed:
 * this fails when they are stale (run `npm run api-types`). And `api()` typed from them refuses, at type
 * check, what the API would refuse: a misspelt path, a missing path parameter, a wrong query value or body
 * member (checked here with the project's TypeScript on a small program written against web/api.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import ts from 'typescript';
import { API_TYPES_FILE, apiTypesSource, openApiDocument } from '../../../scripts/api-types.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-console-api-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the committed api-types.ts is what the OpenAPI document generates (else: npm run api-types)', async () => {
  const fresh = await apiTypesSource(await openApiDocument());
  assert.ok(
    readFileSync(API_TYPES_FILE, 'utf8') === fresh,
    'src/modules/console/web/api-types.ts is stale: run `npm run api-types` and commit the result',
  );
});

const API = path.resolve(import.meta.dirname, 'web/api.ts');

const PROGRAM = `
import { api } from ${JSON.stringify(API)};
export async function calls(farm: string) {
  const alerts = await api('GET', '/v1/farms/{farm}/alerts', { path: { farm }, query: { status: 'open' } });
  const title: string | undefined = alerts.data[0]?.title;
  const added = await api('POST', '/v1/farms', { body: { name: 'North field', timezone: 'America/Chicago' } });
  await api('DELETE', '/v1/session');
  return [title, added.timezone];
}
export async function wrong(farm: string) {
  await api('GET', '/v1/farms/{farm}/alert', { path: { farm } });
  await api('GET', '/v1/farms/{farm}/alerts', { query: { status: 'open' } });
  await api('GET', '/v1/farms/{farm}/alerts', { path: { farm }, query: { status: 'opened' } });
  await api('POST', '/v1/farms', { body: { name: 'North field', timezon: 'UTC' } });
  await api('POST', '/v1/farms', {});
}
`;

test('api() refuses a misspelt path, a missing path parameter, a wrong query value and a wrong body', () => {
  const file = path.join(dir, 'calls.ts');
  writeFileSync(file, PROGRAM);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  const source = program.getSourceFile(file);
  assert.ok(source);
  const lines = program
    .getSemanticDiagnostics(source)
    .map((d) => source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1);
  // Lines 4–8 (the right calls) have no error; each wrong call (lines 11–15) has one.
  assert.deepEqual([...new Set(lines)], [11, 12, 13, 14, 15], JSON.stringify(lines));
});
