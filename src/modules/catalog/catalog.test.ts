import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from '../../../test/harness.ts';
import type { Catalog, ErrorReply, Health, OpenApiDocument } from '../../../test/replies.ts';

forEachEngine('catalog and OpenAPI', (t) => {
  test('GET /v1/catalog needs no key and lists metrics, commands, rules and webhook events', async () => {
    const res = await t().request<Catalog>('GET', '/v1/catalog');
    assert.equal(res.status, 200);
    assert.equal(res.body.metrics.length, 21);
    assert.ok(res.body.metrics.some((m) => m.name === 'climate.nh3_ppm' && m.unit === 'ppm'));
    assert.deepEqual(
      res.body.rules.map((r) => `${r.name} ${r.kind}`),
      [
        'house.ammonia threshold',
        'house.heat threshold',
        'house.feed threshold',
        'water.level threshold',
        'house.battery threshold',
        'animal.fever threshold',
        'device.battery threshold',
        'water.leak rate',
        'device.quiet silence',
        'group.intake_drop rollup',
        'device.clock clock',
      ],
    );
    const leak = res.body.rules.find(
      (r): r is Extract<typeof r, { kind: 'rate' }> => r.name === 'water.leak',
    );
    assert.equal(leak!.change, -30);
    assert.equal(leak!.window_s, 3600);
    assert.deepEqual(leak!.device_types, ['water', 'house']);
    assert.ok(res.body.rules.some((r) => r.name === 'house.ammonia' && r.watch === 20 && r.urgent === 25));
    assert.equal(res.body.commands.house!.length, 17);
    assert.ok(res.body.commands.house!.some((c) => c.name === 'doors.open'));
    assert.equal(res.body.webhook_events.length, 14);
    assert.ok(res.body.webhook_events.some((e) => e.name === 'withdrawal.overridden'));
    assert.ok(res.body.webhook_events.some((e) => e.name === 'movement.created'));
  });

  test('/openapi.json is OpenAPI 3.1 with version 2026-10-18, bearer schemes and route schemas', async () => {
    const res = await t().request<OpenApiDocument>('GET', '/openapi.json');
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '2026-10-18');
    assert.equal(doc.components.securitySchemes.apiKey!.scheme, 'bearer');
    assert.equal(doc.components.securitySchemes.deviceKey!.scheme, 'bearer');
    const create = doc.paths['/v1/farms']!.post;
    assert.ok(create!.requestBody!.content['application/json']!.schema.properties!.name);
    assert.ok(create!.responses['201']);
    assert.ok(create!.responses['400']);
    assert.deepEqual(
      create!.security,
      [{ apiKey: [] }, { sessionCookie: [] }],
      'an API key or a console session',
    );
    assert.deepEqual(doc.paths['/v1/catalog']!.get!.security, [], 'the catalog says it needs no key');
    assert.ok(doc.paths['/v1/farms/{farm}']!.patch);
    assert.ok(doc.components.schemas.Error);
    assert.ok(doc.components.schemas.Farm);
  });

  test('/healthz names the storage engine', async () => {
    const res = await t().request<Health>('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.engine, t().engine);
  });

  test('unknown routes are 404 Error objects', async () => {
    const res = await t().request<ErrorReply>('GET', '/v1/nothing-here');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });
});
