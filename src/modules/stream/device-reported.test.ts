/**
 * `device.reported` frames on the live stream (`?include=device.reported`), over a real socket on both
 * engines: each report's latest values and changed state, only for the clients that asked and may read
 * readings, and reports another process stored (found by the poll).
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, waitFor } from '../../../test/harness.ts';
import type { NewKey } from '../../../test/replies.ts';
import { openSse, type SseStream } from '../../../test/sse.ts';

forEachEngine(
  'live stream: device.reported frames',
  (t) => {
    let base = '';
    before(async () => {
      await t().app.listen({ host: '127.0.0.1', port: 0 });
      const address = t().app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    async function openReady(farmId: string, key: string, query = '?include=device.reported') {
      const stream = await openSse(`${base}/v1/farms/${farmId}/stream${query}`, key);
      assert.equal(stream.status, 200, stream.body);
      await waitFor('the opening frame', () => stream.retry !== null);
      return stream;
    }

    const reports = (s: SseStream) => s.events.filter((e) => e.event === 'device.reported');

    test('a report arrives as device.reported: latest values, and the state only when it changed', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key, { name: 'Barn display farm' });
      const house = await make.device(t(), acct.live_key, farm.id, { type: 'house', name: 'House 1' });
      const stream = await openReady(farm.id, acct.live_key);
      const plain = await openReady(farm.id, acct.live_key, '');
      try {
        const before = stream.lastEventId;
        const first = await make.report(t(), house.device_key, {
          readings: [
            { metric: 'climate.temp_c', value: 21.5 },
            { metric: 'feed.bin_pct', value: 64 },
          ],
          state: { lights: 'on' },
          battery: 88,
          lat: 38.2025,
          lon: -97.1075,
        });
        assert.equal(first.status, 200);
        const frame = await stream.next('device.reported');
        assert.doesNotMatch(stream.text, /id: [^\n]*\nevent: device\.reported/, 'no id: line');
        assert.equal(stream.lastEventId, before, 'and do not move the resume position');
        assert.equal(frame.json.type, 'device.reported');
        assert.equal(frame.json.farm_id, farm.id);
        const data = frame.json.data;
        assert.equal(data.object, 'device_report');
        assert.equal(data.device_id, house.id);
        assert.equal(data.name, 'House 1');
        assert.equal(data.type, 'house');
        assert.equal(data.battery, 88);
        assert.deepEqual([data.lat, data.lon], [38.2025, -97.1075], 'its position, for a map');
        assert.equal(data.latest['climate.temp_c'].value, 21.5);
        assert.equal(data.latest['climate.temp_c'].unit, '°C');
        assert.equal(data.latest['feed.bin_pct'].value, 64);
        assert.match(data.latest['feed.bin_pct'].at, /Z$/);
        assert.equal(data.state.lights, 'on', 'the first frame of a device carries its state');

        // Readings alone: new values, the state left out (it did not change).
        await make.report(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 23 }] });
        const second = await waitFor('a second frame', () => reports(stream)[1]);
        assert.equal(second.json.data.latest['climate.temp_c'].value, 23);
        assert.equal(second.json.data.latest['feed.bin_pct'].value, 64, 'every metric’s latest value');
        assert.equal(second.json.data.state, undefined);

        await make.report(t(), house.device_key, { state: { lights: 'off' } });
        const third = await waitFor('a third frame', () => reports(stream)[2]);
        assert.equal(third.json.data.state.lights, 'off', 'a changed state is sent');

        // A stream that did not ask gets none of them (an event after them shows it has read that far).
        const note = await make.created<{ id: string }>(t(), acct.live_key, `/v1/farms/${farm.id}/events`, {
          type: 'note',
          data: {},
        });
        await waitFor('the note on the plain stream', () =>
          plain.events.find((e) => e.json?.data?.id === note.id),
        );
        assert.deepEqual(reports(plain), []);
        assert.equal(reports(stream).length, 3, 'one frame per report');
      } finally {
        stream.close();
        plain.close();
      }
    });

    test('a key that may not read readings gets no device.reported frames; an unknown include is 400', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key, { name: 'Records only farm' });
      const house = await make.device(t(), acct.live_key, farm.id, { type: 'house', name: 'House 2' });
      const records = await make.posted<NewKey>(t(), acct.live_key, '/v1/keys', {
        name: 'records only',
        permissions: { records: 'read' },
      });
      const bad = expectError(
        await t().request('GET', `/v1/farms/${farm.id}/stream?include=device.reported,readings`, {
          key: acct.live_key,
        }),
        400,
        'invalid_request',
      );
      assert.equal(bad.param, 'include');
      assert.match(bad.message, /"readings" is not a frame/);
      const stream = await openReady(farm.id, records.key);
      try {
        await make.report(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 19 }] });
        const note = await make.created<{ id: string }>(t(), acct.live_key, `/v1/farms/${farm.id}/events`, {
          type: 'note',
          data: {},
        });
        await waitFor('the note', () => stream.events.find((e) => e.json?.data?.id === note.id));
        assert.deepEqual(reports(stream), []);
      } finally {
        stream.close();
      }
    });

    test('a report another process stored reaches the stream by the poll', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key, { name: 'Two process farm' });
      const sensor = await make.device(t(), acct.live_key, farm.id, { type: 'water', name: 'Trough' });
      const stream = await openReady(farm.id, acct.live_key);
      try {
        // What another server process's ingest leaves in the database, without this process hearing of it.
        const now = Date.now();
        await t()
          .database.db.updateTable('devices')
          .set({ last_seen_at: now, battery: 77 })
          .where('id', '=', sensor.id)
          .execute();
        await t()
          .database.db.insertInto('device_latest')
          .values({ device_id: sensor.id, metric: 'water.tank_pct', value: 41, unit: '%', at: now })
          .execute();
        const frame = await stream.next('device.reported');
        assert.equal(frame.json.data.device_id, sensor.id);
        assert.equal(frame.json.data.battery, 77);
        assert.equal(frame.json.data.latest['water.tank_pct'].value, 41);
      } finally {
        stream.close();
      }
    });
  },
  { streamPollMs: 100 },
);
