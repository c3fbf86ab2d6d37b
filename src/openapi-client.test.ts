/**
 * A client generated from the served document is usable and typed: openapi-typescript turns
 * /openapi.json into types, the project's TypeScript checks a small program written against them
 * (and refuses the same program with a misspelt command parameter), then the program runs with
 * openapi-fetch against the real server on a real port.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { ENGINES, startTestApp, type TestApp } from '../test/harness.ts';

/** The program a client developer would write: lists farms, adds an animal, sends a house command, reads the brief. */
const PROGRAM = `
import type { Client } from 'openapi-fetch';
import type { components, paths } from './api.ts';

export type HouseCommand = components['schemas']['HouseCommand'];

export async function sendHouseCommand(client: Client<paths>, deviceId: string, body: HouseCommand) {
  const { data, error } = await client.POST('/v1/devices/{id}/commands', {
    params: { path: { id: deviceId } },
    body,
  });
  if (error) throw new Error(error.error.message);
  return data;
}

export async function run(client: Client<paths>) {
  const farms = await client.GET('/v1/farms', { params: { query: { limit: 10 } } });
  if (!farms.data) throw new Error('no farms');
  const farm = farms.data.data[0];
  if (!farm) throw new Error('no farm');
  const path = { farm: farm.id };
  const animal = await client.POST('/v1/farms/{farm}/animals', {
    params: { path },
    body: { species: 'sheep', name: 'Dolly', birth_date: '2026-03-01' },
  });
  if (!animal.data) throw new Error(animal.error?.error.message);
  const houses = await client.GET('/v1/farms/{farm}/houses', { params: { path } });
  const house = houses.data?.data[0];
  if (!house) throw new Error('no house');
  const command = await sendHouseCommand(client, house.id, { command: 'doors.open', params: { doors: [1, 2] } });
  const brief = await client.GET('/v1/farms/{farm}/brief', { params: { path } });
  if (!brief.data) throw new Error('no brief');
  const status: 'queued' | 'delivered' | 'done' | 'failed' = command.status;
  return { farm: farm.name, animal: animal.data.name, birth: animal.data.birth_date, status, headline: brief.data.headline };
}

// Parameters the server defaults (meters_per_day) may be left out.
export const startMoving = (client: Client<paths>, id: string) =>
  sendHouseCommand(client, id, { command: 'move.start', params: { heading_deg: 90 } });
`;

const MISSPELT = `
import type { Client } from 'openapi-fetch';
import type { paths } from './api.ts';
import { sendHouseCommand } from './program.ts';

export const misspelt = (client: Client<paths>, id: string) =>
  sendHouseCommand(client, id, { command: 'doors.open', params: { dors: 'all' } });

export const misspeltOptional = (client: Client<paths>, id: string) =>
  sendHouseCommand(client, id, { command: 'doors.schedule', params: { opne: '06:00' } });
`;

interface Problem {
  message: string;
  /** The source text the error points at. */
  at: string;
}

/** Type-checks the files with the project's TypeScript; returns each file's problems. */
function typeCheck(dir: string, files: string[]): Map<string, Problem[]> {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    // The temp folder has no node_modules: point the one import at the project's copy.
    paths: {
      'openapi-fetch': [fileURLToPath(import.meta.resolve('openapi-fetch')).replace(/\.mjs$/, '.d.mts')],
    },
  };
  const program = ts.createProgram(
    files.map((file) => path.join(dir, file)),
    options,
  );
  const out = new Map<string, Problem[]>();
  for (const file of files) {
    const source = program.getSourceFile(path.join(dir, file));
    assert.ok(source, file);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    out.set(
      file,
      diagnostics.map((d) => ({
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
        at: d.start === undefined ? '' : source.text.slice(d.start, d.start + (d.length ?? 0)),
      })),
    );
  }
  return out;
}

describe('a typed client generated from the OpenAPI document', () => {
  // The document and the client do not depend on the engine; one is enough.
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await startTestApp(ENGINES[0] ?? 'sqlite');
    dir = mkdtempSync(path.join(tmpdir(), 'farmstead-client-'));
    const doc = (await t.request('GET', '/openapi.json')).body as OpenAPI3;
    writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(doc)));
    writeFileSync(path.join(dir, 'program.ts'), PROGRAM);
    writeFileSync(path.join(dir, 'misspelt.ts'), MISSPELT);
  });
  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the program type-checks, and a misspelt command parameter does not compile', () => {
    const diagnostics = typeCheck(dir, ['program.ts', 'misspelt.ts']);
    assert.deepEqual(diagnostics.get('program.ts'), []);
    // TypeScript reports each misspelt member where it is written ("… not assignable to type 'never'" or
    // "'dors' does not exist…", depending on the other commands in the union).
    const misspelt = diagnostics.get('misspelt.ts') ?? [];
    assert.deepEqual(
      misspelt.map((problem) => problem.at),
      ['dors', 'opne'],
      misspelt.map((problem) => problem.message).join('\n'),
    );
  });

  test('the program runs against the real server with openapi-fetch', async () => {
    const acct = await t.account();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    // The test key sees the sample farm, where the house command is simulated and done at once.
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      headers: { authorization: `Bearer ${acct.test_key}` },
    });
    const program = (await import(pathToFileURL(path.join(dir, 'program.ts')).href)) as {
      run(client: unknown): Promise<Record<string, unknown>>;
    };
    const result = await program.run(client);
    assert.equal(result.animal, 'Dolly');
    assert.equal(result.birth, '2026-03-01T00:00:00.000Z');
    assert.equal(result.status, 'done');
    assert.equal(typeof result.headline, 'string');
  });
});
