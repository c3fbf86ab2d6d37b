/**
 * The served OpenAPI document: Redocly's recommended rules find nothing (0 errors, 0 warnings), and it
 * keeps the conventions of docs/api.md (operationIds, tags, errors, typed command bodies, dates).
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { ENGINES, forEachEngine } from '../test/harness.ts';
import type { ErrorReply, Farm, HouseReply, Items, List } from '../test/replies.ts';
import { DEVICE_COMMANDS } from './domain/devices.ts';
import { ERROR_STATUS } from './domain/errors.ts';
import { HOUSE_COMMAND_NAMES } from './domain/house-commands.ts';
import { TAGS } from './openapi.ts';

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function operations(doc: Json): Array<{ path: string; method: string; op: Json }> {
  const out: Array<{ path: string; method: string; op: Json }> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

/** The document as the first engine's app served it: every other engine must serve the same one. */
let firstDocument: string | undefined;

forEachEngine('the OpenAPI document', (t) => {
  let doc: Json;
  before(async () => {
    const res = await t().request<Json>('GET', '/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
    const text = JSON.stringify(doc);
    firstDocument ??= text;
    assert.equal(text, firstDocument, 'the document does not depend on the engine');
  });

  test('Redocly recommended rules: 0 errors and 0 warnings', async (c) => {
    // The document is the same on every engine (checked above), so it is linted once.
    if (t().engine !== ENGINES[0]) return c.skip('linted on the first engine: the document is the same');
    // The built-in ruleset: nothing is fetched.
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config,
    });
    const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    assert.deepEqual(found, []);
  });

  test('version 2026-10-18, a relative server, and every tag defined at the top with a description', () => {
    assert.equal(doc.info.version, '2026-10-18');
    assert.equal(doc.info.license.identifier, 'Apache-2.0', 'the LICENSE file');
    assert.deepEqual(doc.servers, [{ url: '/', description: 'This server' }]);
    assert.deepEqual(
      doc.tags.map((tag: Json) => tag.name),
      TAGS.map((tag) => tag.name),
    );
    for (const tag of doc.tags) assert.ok(tag.description, tag.name);
    const defined = new Set(TAGS.map((tag) => tag.name as string));
    const used = new Set(operations(doc).flatMap(({ op }) => op.tags as string[]));
    for (const { path, method, op } of operations(doc)) {
      assert.equal(op.tags?.length, 1, `${method} ${path} has one tag`);
      assert.ok(defined.has(op.tags[0]), `${method} ${path}: tag ${op.tags[0]} is defined`);
    }
    assert.deepEqual(
      [...defined].filter((name) => !used.has(name)),
      [],
      'every tag is used',
    );
  });

  test('every operation has a camelCase operationId, a summary and described responses', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations(doc)) {
      const where = `${method} ${path}`;
      assert.match(op.operationId, /^[a-z]+[A-Za-z]*$/, where);
      assert.ok(!ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
      assert.ok(op.summary, where);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        assert.notEqual(response.description, 'Default Response', `${where} ${status}`);
      }
    }
    for (const id of ['listAnimals', 'createDeviceCommand', 'getFarmBrief', 'listFarms', 'getCatalog']) {
      assert.ok(ids.has(id), id);
    }
  });

  test('error responses are the Error object, with the code and its meaning, and fit the operation', () => {
    // A status may have more than one code (409: conflict, withdrawal_active): the description names one of them.
    const codesOf = (status: string) =>
      Object.entries(ERROR_STATUS)
        .filter(([, s]) => String(s) === status)
        .map(([code]) => code);
    for (const { path, method, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (!/^[45]/.test(status) || status === '4XX') continue;
        const where = `${method} ${path} ${status}`;
        assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/Error', where);
        assert.ok(
          codesOf(status).some((code) => response.description.startsWith(`${code}: `)),
          where,
        );
      }
    }
    const responses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    // 403 (a restricted key) and 429 (rate limits) are added to every keyed route at registration.
    assert.deepEqual(responses('/v1/animals/{id}', 'get'), ['200', '401', '403', '404', '429']);
    assert.deepEqual(responses('/v1/farms/{farm}/animals', 'post'), [
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
    ]);
    assert.deepEqual(responses('/v1/animals/{id}', 'patch'), [
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
    ]);
    assert.deepEqual(responses('/v1/device/commands', 'get'), ['200', '401', '429']);
    assert.deepEqual(responses('/v1/farms', 'get'), ['200', '400', '401', '403', '429']);
    assert.match(doc.paths['/v1/keys/{id}'].delete.responses['409'].description, /last live key/);
  });

  test('every POST documents Idempotency-Key, its replay header and its 400 and 409', () => {
    for (const { path, method, op } of operations(doc)) {
      if (method !== 'post') continue;
      const header = op.parameters?.find((p: Json) => p.name === 'Idempotency-Key');
      assert.equal(header?.in, 'header', path);
      assert.match(op.responses['409'].description, /Idempotency-Key was already used/, path);
      assert.match(op.responses['400'].description, /Idempotency-Key is not 1 to 255 characters/, path);
      const ok = Object.entries(op.responses as Json).find(([status]) => status.startsWith('2'));
      assert.ok(ok?.[1].headers['Idempotent-Replayed'], path);
    }
    // A conflict of the operation's own comes first, the idempotency one after it.
    assert.match(
      doc.paths['/v1/alerts/{id}/acknowledge'].post.responses['409'].description,
      /^conflict: The alert is resolved.* Or conflict: Idempotency-Key/,
    );
  });

  test('security: API key or session cookie, device key on device routes, and none on the catalog and sign-in', () => {
    assert.deepEqual(doc.paths['/v1/catalog'].get.security, []);
    assert.deepEqual(doc.paths['/v1/ingest'].post.security, [{ deviceKey: [] }]);
    assert.deepEqual(doc.paths['/v1/device/commands'].get.security, [{ deviceKey: [] }]);
    assert.deepEqual(doc.paths['/v1/farms'].get.security, [{ apiKey: [] }, { sessionCookie: [] }]);
    assert.deepEqual(doc.paths['/v1/session'].post.security, []);
    assert.deepEqual(doc.paths['/v1/setup/{token}'].post.security, []);
  });

  test('a body marked optional may be left out (marking a task done, acknowledging); others are required', () => {
    for (const path of ['/v1/tasks/{id}/done', '/v1/alerts/{id}/acknowledge', '/v1/me/notifications/test']) {
      assert.equal(doc.paths[path].post.requestBody.required, false, path);
    }
    assert.equal(doc.paths['/v1/farms/{farm}/tasks'].post.requestBody.required, true);
    assert.equal(doc.paths['/v1/devices/{id}/commands'].post.requestBody.required, true);
  });

  test('the command body is typed per command, from the registry', () => {
    const body = doc.paths['/v1/devices/{id}/commands'].post.requestBody.content['application/json'].schema;
    assert.equal(body.$ref, '#/components/schemas/CommandRequest');
    const schemas = doc.components.schemas;
    const commandOf = (branch: Json) => branch.properties.command.enum ?? [branch.properties.command.const];
    const houseNames = schemas.HouseCommand.oneOf.flatMap(commandOf);
    assert.deepEqual(houseNames, [...HOUSE_COMMAND_NAMES]);
    const deviceNames = new Set(Object.values(DEVICE_COMMANDS).flatMap((specs) => specs.map((s) => s.name)));
    assert.deepEqual(new Set(schemas.DeviceCommand.oneOf.flatMap(commandOf)), deviceNames);
    const doorsOpen = schemas.HouseCommand.oneOf.find((b: Json) => commandOf(b)[0] === 'doors.open');
    assert.deepEqual(doorsOpen.required, ['command', 'params']);
    assert.equal(doorsOpen.properties.params.additionalProperties, false);
    assert.ok(doorsOpen.properties.params.properties.doors);
    const other = schemas.CommandRequest.anyOf[2];
    assert.deepEqual(
      new Set(other.properties.command.not.enum),
      new Set([...HOUSE_COMMAND_NAMES, ...deviceNames]),
    );
  });

  test('the live command route keeps its own messages: the document’s schema is not what checks it', async () => {
    const acct = await t().account();
    const farm = (await t().request<List<Farm>>('GET', '/v1/farms', { key: acct.test_key })).body.data[0];
    const houses = await t().request<Items<HouseReply>>('GET', `/v1/farms/${farm!.id}/houses`, {
      key: acct.test_key,
    });
    const house = houses.body.data[0];
    const res = await t().request<ErrorReply>('POST', `/v1/devices/${house!.id}/commands`, {
      key: acct.test_key,
      body: { command: 'doors.open', params: { dors: 'all' } },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'params.dors');
    assert.match(res.body.error.message, /doors\.open has no parameter "dors"\. Its parameters: doors\./);
  });

  test('dates a client sends are date-time, and say what the server accepts', () => {
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    const fields = [
      body('/v1/farms/{farm}/animals').properties.birth_date,
      body('/v1/farms/{farm}/groups').properties.hatch_date,
      body('/v1/farms/{farm}/paddocks').properties.last_grazed_at,
      body('/v1/farms/{farm}/tasks').properties.due_at,
      body('/v1/farms/{farm}/events').properties.at,
      body('/v1/ingest').properties.readings.items.properties.at,
    ];
    for (const field of fields) {
      const text = JSON.stringify(field);
      assert.match(text, /"format":"date-time"/);
      assert.match(
        text,
        /a date \(2026-05-01, midnight UTC unless the field says otherwise\) or a date-time/,
      );
      assert.match(text, /without an offset it is UTC/);
    }
  });

  test('the main schemas carry examples', () => {
    for (const name of ['Farm', 'Animal', 'Device', 'Command', 'Alert', 'Brief', 'Error', 'HouseCommand']) {
      assert.ok(doc.components.schemas[name].examples?.length, name);
    }
  });
});
