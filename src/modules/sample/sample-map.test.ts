/**
 * The sample farm on the map: every paddock drawn with a valid outline whose area matches its acres, the
 * houses and trackers inside paddocks, and a few days of track behind them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { forEachEngine } from '../../../test/harness.ts';
import type { FarmMap } from '../map/schemas.ts';
import { checkPaddockGeometry } from '../paddocks/geometry.ts';
import type { Track } from '../positions/schemas.ts';
import { TRACK_DAYS } from './data.ts';

forEachEngine('sample farm on the map', (t) => {
  test('paddocks are drawn (valid, drawn area = acres); houses and trackers stand in paddocks with days of track', async () => {
    const acct = await t().sharedAccount();
    const key = acct.test_key;
    const res = await t().request<FarmMap>('GET', `/v1/farms/${acct.sample_farm_id}/map`, { key });
    assert.equal(res.status, 200);
    const paddocks = res.body.features.filter((f) => f.properties.kind === 'paddock');
    assert.equal(paddocks.length, 6);
    for (const p of paddocks) {
      const geometry = checkPaddockGeometry(p.geometry);
      const { acres, drawn_acres, name } = p.properties as {
        acres: number;
        drawn_acres: number;
        name: string;
      };
      assert.ok(
        Math.abs(drawn_acres - acres) / acres < 0.01,
        `${name}: drawn ${drawn_acres}, given ${acres}`,
      );
      assert.ok(geometry);
    }
    const inPaddock = (lonLat: number[]) =>
      paddocks.find((p) => booleanPointInPolygon(lonLat, checkPaddockGeometry(p.geometry)))?.properties.name;
    const devices = res.body.features.filter((f) => f.properties.kind === 'device');
    const placed = Object.fromEntries(
      devices.map((d) => [
        d.properties.name,
        inPaddock((d.geometry as { coordinates: number[] }).coordinates),
      ]),
    );
    assert.equal(placed['House 1'], 'Orchard');
    assert.equal(placed['House 2'], 'South Meadow');
    assert.equal(placed['Ear tag 1'], 'Creek Bottom');
    assert.equal(placed['Collar band (Bo)'], 'South Meadow');

    for (const name of ['House 1', 'House 2', 'Ear tag 1', 'Collar band (Bo)']) {
      const device = devices.find((d) => d.properties.name === name);
      const since = new Date(Date.now() - (TRACK_DAYS + 2) * 86_400_000).toISOString();
      const track = await t().request<Track>(
        'GET',
        `/v1/devices/${device?.id}/track?since=${since}&limit=2000`,
        {
          key,
        },
      );
      assert.ok(track.body.data.length >= TRACK_DAYS * 24, `${name}: ${track.body.data.length} positions`);
      const outside = track.body.data.filter((p) => inPaddock([p.lon, p.lat]) !== placed[name]);
      assert.deepEqual(outside, [], `${name}'s track stays in its paddock`);
    }
  });
});
