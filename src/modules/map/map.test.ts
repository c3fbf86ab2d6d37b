/**
 * GET /v1/farms/{farm}/map: the FeatureCollection's features by kind, their properties, what is left out
 * (devices without a position, alerts without a place, resolved alerts), a stored geometry that cannot be
 * drawn, house routes, the download, and the permissions it needs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { FarmMap, MapFeature } from './schemas.ts';

const square = (lon: number, lat: number, d = 0.002) => ({
  type: 'Polygon',
  coordinates: [
    [
      [lon, lat],
      [lon + d, lat],
      [lon + d, lat + d],
      [lon, lat + d],
      [lon, lat],
    ],
  ],
});

const ofKind = (map: FarmMap, kind: string) => map.features.filter((f) => f.properties.kind === kind);
const byId = (features: MapFeature[], id: string) => features.find((f) => f.id === id);

forEachEngine('farm map', (t) => {
  test('the map is a FeatureCollection of paddocks, placed devices, placed active alerts and house routes', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = (await make.farm(t(), key)).id;
    const east = await make.paddock(t(), key, farm, {
      name: 'East',
      rest_days_target: 30,
      geometry: square(-92.33, 38.95),
    });
    const west = await make.paddock(t(), key, farm, { name: 'West', geometry: square(-92.34, 38.95) });
    const bare = await make.paddock(t(), key, farm, { name: 'Not drawn', acres: 3 });
    const broken = await make.paddock(t(), key, farm, { name: 'Broken', acres: 5 });
    await t()
      .database.db.updateTable('paddocks')
      .set({ geometry: JSON.stringify({ type: 'Point', coordinates: [-92.3, 38.9] }) })
      .where('id', '=', broken.id)
      .execute();
    const group = await make.group(t(), key, farm, { name: 'Herd', species: 'cattle', paddock_id: east.id });
    const cow = await make.animal(t(), key, farm, { species: 'cattle', tag: 'A1' });
    const house = await make.device(t(), key, farm, { name: 'House 1', lat: 38.951, lon: -92.339 });
    const collar = await make.device(t(), key, farm, {
      type: 'tag',
      name: 'Collar 1',
      animal_id: cow.id,
      lat: 38.9512,
      lon: -92.3285,
    });
    const sensor = await make.device(t(), key, farm, { type: 'water', name: 'Trough' });

    const houseWords = {
      title: { key: 'reading.title.in', params: { rule: 'High ammonia', subject: 'House 2' } },
      reason: { key: 'reading.title.in', params: { rule: 'High ammonia', subject: 'House 2' } },
    };
    const onHouse = await make.alertRow(t(), farm, {
      subject_type: 'device',
      subject_id: house.id,
      words: JSON.stringify(houseWords),
    });
    const onEast = await make.alertRow(t(), farm, {
      subject_type: 'paddock',
      subject_id: east.id,
      rule: 'paddock.rest',
      severity: 'info',
      severity_rank: 2,
      status: 'acknowledged',
    });
    const onGroup = await make.alertRow(t(), farm, { subject_type: 'group', subject_id: group.id });
    const onCow = await make.alertRow(t(), farm, { subject_type: 'animal', subject_id: cow.id });
    const onSensor = await make.alertRow(t(), farm, { subject_type: 'device', subject_id: sensor.id });
    const resolved = await make.alertRow(t(), farm, {
      subject_type: 'device',
      subject_id: house.id,
      status: 'resolved',
    });
    const move = await make.posted<{ id: string }>(t(), key, `/v1/devices/${house.id}/commands`, {
      command: 'move.to_paddock',
      params: { paddock_id: east.id },
    });

    const res = await t().request<FarmMap>('GET', `/v1/farms/${farm}/map`, { key });
    assert.equal(res.status, 200);
    const map = res.body;
    assert.equal(map.type, 'FeatureCollection');
    for (const f of map.features) assert.equal(f.type, 'Feature');

    const paddocks = ofKind(map, 'paddock');
    assert.equal(paddocks.length, 4, 'every paddock, drawn or not');
    const eastFeature = byId(paddocks, east.id);
    assert.deepEqual(eastFeature?.geometry, square(-92.33, 38.95));
    // The record as the paddocks service answers it now (whatever it derives, such as who is in it).
    const eastNow = await make.fetched<typeof east>(t(), key, `/v1/paddocks/${east.id}`);
    const { geometry: _g, ...eastRecord } = eastNow;
    assert.deepEqual(eastFeature?.properties, { ...eastRecord, kind: 'paddock' }, 'the Paddock record');
    assert.equal(byId(paddocks, west.id)?.properties.name, 'West');
    assert.equal(byId(paddocks, bare.id)?.geometry, null);
    assert.equal(byId(paddocks, bare.id)?.properties.geometry_problem, undefined);
    const brokenFeature = byId(paddocks, broken.id);
    assert.equal(brokenFeature?.geometry, null, 'a stored geometry that cannot be drawn is left out');
    assert.match(String(brokenFeature?.properties.geometry_problem), /is a Point/);

    const devices = ofKind(map, 'device');
    assert.deepEqual(
      devices.map((d) => d.id).sort(),
      [house.id, collar.id].sort(),
      'devices with a position',
    );
    // paddock_id: the device record's (derived from its position where the records derive it).
    const houseNow = await make.fetched<Record<string, unknown>>(t(), key, `/v1/devices/${house.id}`);
    assert.deepEqual(byId(devices, house.id), {
      type: 'Feature',
      id: house.id,
      geometry: { type: 'Point', coordinates: [-92.339, 38.951] },
      properties: {
        id: house.id,
        name: 'House 1',
        type: 'house',
        battery: null,
        last_seen_at: null,
        paddock_id: houseNow.paddock_id ?? null,
        group_id: null,
        animal_id: null,
        kind: 'device',
      },
    });

    const alerts = ofKind(map, 'alert');
    assert.deepEqual(
      alerts.map((a) => a.id).sort(),
      [onHouse, onEast, onGroup, onCow].sort(),
      'active alerts with a place (not the sensor without a position, not the resolved one)',
    );
    assert.ok(!byId(alerts, onSensor) && !byId(alerts, resolved));
    assert.deepEqual(byId(alerts, onHouse)?.geometry, { type: 'Point', coordinates: [-92.339, 38.951] });
    // The alert's words, as on the Alert, so the map's sheet writes its title in the reader's language.
    assert.deepEqual(byId(alerts, onHouse)?.properties.words, houseWords);
    assert.deepEqual(
      byId(alerts, onCow)?.geometry,
      { type: 'Point', coordinates: [-92.3285, 38.9512] },
      'where the collar is',
    );
    const inEast = byId(alerts, onEast)?.geometry as { coordinates: [number, number] };
    assert.ok(inEast.coordinates[0] > -92.33 && inEast.coordinates[0] < -92.328, 'inside the paddock');
    assert.deepEqual(byId(alerts, onGroup)?.geometry, inEast, "the group's paddock");
    assert.deepEqual(byId(alerts, onEast)?.properties, {
      id: onEast,
      rule: 'paddock.rest',
      severity: 'info',
      status: 'acknowledged',
      title: 'Ammonia rising',
      subject_type: 'paddock',
      subject_id: east.id,
      // An alert row written without words (as before migration 0047); the engine's carry theirs.
      words: null,
      kind: 'alert',
    });

    const routes = ofKind(map, 'route');
    assert.equal(routes.length, 1);
    const route = routes[0] as MapFeature;
    assert.deepEqual(route.geometry, {
      type: 'LineString',
      coordinates: [[-92.339, 38.951], inEast.coordinates],
    });
    const props = route.properties as Record<string, number | string>;
    assert.equal(props.device_id, house.id);
    assert.equal(props.command_id, move.id);
    assert.equal(props.paddock_id, east.id);
    assert.equal(props.meters_per_day, 18);
    // About 0.01° of longitude at 39° N: some 860 m.
    assert.ok(Number(props.distance_m) > 800 && Number(props.distance_m) < 900, String(props.distance_m));
    const days = (Date.parse(String(props.arrival_at)) - Date.now()) / 86_400_000;
    assert.ok(Math.abs(days - Number(props.distance_m) / 18) < 0.1, `${days} days`);
    assert.equal(map.features.length, 4 + 2 + 4 + 1);
  });

  test('download=true answers the same as a .geojson attachment; a key without devices or alerts is refused', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = (await make.farm(t(), key)).id;
    await make.paddock(t(), key, farm, { name: 'East', geometry: square(-92.33, 38.95) });
    const plain = await t().request<FarmMap>('GET', `/v1/farms/${farm}/map`, { key });
    const file = await t().request<FarmMap>('GET', `/v1/farms/${farm}/map?download=true`, { key });
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-type']), /^application\/geo\+json/);
    assert.equal(file.headers['content-disposition'], `attachment; filename="${farm}.geojson"`);
    assert.deepEqual(file.body, plain.body);
    expectError(await t().request('GET', `/v1/farms/${farm}/map?zoom=3`, { key }), 400, 'invalid_request');
    expectError(await t().request('GET', '/v1/farms/farm_nope/map', { key }), 404, 'not_found');

    const restricted = await make.posted<{ key: string }>(t(), key, '/v1/keys', {
      name: 'records only',
      permissions: { records: 'read' },
    });
    const err = expectError(
      await t().request('GET', `/v1/farms/${farm}/map`, { key: restricted.key }),
      403,
      'forbidden',
    );
    assert.match(err.message, /devices:read/);
  });
});
