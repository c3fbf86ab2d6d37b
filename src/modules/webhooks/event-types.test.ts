/** End to end: each event type, caused through the REST and ingest APIs, reaches a real receiver. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { forEachEngine, startReceiver, startWebhookWorker, waitFor } from '../../../test/harness.ts';
import type { Alert, Animal, Command, Farm, List, NewDevice, NewWebhook } from '../../../test/replies.ts';
import { deliverDueNow } from '../../../test/webhook-delivery.ts';
import { hmacMatches, verifyLikeAReceiver } from '../../../test/webhook-receiver.ts';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import type { Treatment } from '../treatments/schemas.ts';

forEachEngine(
  'webhook event types',
  (t) => {
    const closers: Array<() => Promise<void>> = [];
    after(() => Promise.all(closers.map((close) => close())));

    test('each of the fourteen event types is delivered once with a valid signature', async () => {
      const rcv = await startReceiver();
      closers.push(rcv.close);
      const acct = await t().account();
      const key = acct.live_key;
      const farm = await t().request<Farm>('POST', '/v1/farms', { key, body: { name: 'Every event' } });
      const farmId = farm.body.id;
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key,
        body: { url: rcv.url },
      });
      assert.equal(hook.status, 201);
      const secret: string = hook.body.secret;
      const worker = startWebhookWorker(t());
      const expected: Array<{ type: string; data: unknown }> = [];
      let deviceKey = '';
      try {
        const animal = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
          key,
          body: { species: 'cattle', name: 'Bessie', tag: 'B7' },
        });
        assert.equal(animal.status, 201, JSON.stringify(animal.body));
        expected.push({ type: 'animal.created', data: animal.body });

        const logged = await t().request('POST', `/v1/farms/${farmId}/events`, {
          key,
          body: {
            type: 'treatment',
            subject_type: 'animal',
            subject_id: animal.body.id,
            data: { dose_ml: 12 },
          },
        });
        assert.equal(logged.status, 201, JSON.stringify(logged.body));
        expected.push({ type: 'event.created', data: logged.body });

        // The herd book: a treatment (and its event in the log), then a sale inside its withdrawal, overridden.
        const medicine = await t().request<{ id: string }>('POST', `/v1/farms/${farmId}/medicines`, {
          key,
          body: { name: 'Oxytet', unit: 'ml', withdrawal: { meat_days: 28 } },
        });
        assert.equal(medicine.status, 201, JSON.stringify(medicine.body));
        const treated = await t().request<{ data: Treatment[] }>('POST', `/v1/farms/${farmId}/treatments`, {
          key,
          body: {
            medicine_id: medicine.body.id,
            animal_ids: [animal.body.id],
            dose: 10,
            dose_unit: 'ml',
            route: 'injection_im',
          },
        });
        assert.equal(treated.status, 201, JSON.stringify(treated.body));
        const [treatment] = treated.body.data;
        assert.ok(treatment?.event_id);
        const treatmentEvent = await t().request('GET', `/v1/events/${treatment.event_id}`, { key });
        expected.push({ type: 'event.created', data: treatmentEvent.body });
        expected.push({ type: 'treatment.created', data: treatment });
        const sale = await t().request<{ id: string }>('POST', `/v1/farms/${farmId}/events`, {
          key,
          body: { type: 'sale', subject_id: animal.body.id, override_reason: 'Kept for breeding' },
        });
        assert.equal(sale.status, 201, JSON.stringify(sale.body));
        expected.push({ type: 'event.created', data: sale.body });
        const overridden = {
          action: 'sale',
          override_reason: 'Kept for breeding',
          event_id: sale.body.id,
          animals: [
            {
              animal_id: animal.body.id,
              name: 'Bessie',
              tag: 'B7',
              meat_until: treatment.withdrawal_until.meat,
              treatment_id: treatment.id,
              medicine_id: medicine.body.id,
              medicine: 'Oxytet',
              batch_id: null,
              batch: null,
            },
          ],
        };
        expected.push({ type: 'withdrawal.overridden', data: overridden });
        // A treatment given by mistake, then taken back.
        const mistaken = await t().request<{ data: Treatment[] }>('POST', `/v1/farms/${farmId}/treatments`, {
          key,
          body: {
            medicine_id: medicine.body.id,
            animal_ids: [animal.body.id],
            dose: 1,
            dose_unit: 'ml',
            route: 'oral',
          },
        });
        assert.equal(mistaken.status, 201, JSON.stringify(mistaken.body));
        const [mistake] = mistaken.body.data;
        assert.ok(mistake?.event_id);
        const mistakeEvent = await t().request('GET', `/v1/events/${mistake.event_id}`, { key });
        expected.push({ type: 'event.created', data: mistakeEvent.body });
        expected.push({ type: 'treatment.created', data: mistake });
        const takenBack = await t().request('DELETE', `/v1/treatments/${mistake.id}`, { key });
        assert.equal(takenBack.status, 200, JSON.stringify(takenBack.body));
        expected.push({ type: 'treatment.deleted', data: mistake });
        const moved = await t().request<{ event_id: string }>('POST', `/v1/farms/${farmId}/movements`, {
          key,
          body: {
            direction: 'on',
            at: '2026-07-01T08:00:00Z',
            head_count: 12,
            species: 'sheep',
            other_holding: '12/345/6789',
            reason: 'purchase',
          },
        });
        assert.equal(moved.status, 201, JSON.stringify(moved.body));
        const movementEvent = await t().request('GET', `/v1/events/${moved.body.event_id}`, { key });
        expected.push({ type: 'event.created', data: movementEvent.body });
        expected.push({ type: 'movement.created', data: moved.body });

        // A weigh session is announced once (its weights are not each an event.created).
        const weighed = await t().request<Record<string, unknown>>(
          'POST',
          `/v1/farms/${farmId}/weigh-sessions/import`,
          { key, body: { content: 'VID,Weight,Date\nB7,412,2026-05-01\n' } },
        );
        assert.equal(weighed.status, 201, JSON.stringify(weighed.body));
        const { already_imported, unmatched, duplicates, refused, ...session } = weighed.body;
        expected.push({ type: 'weigh_session.imported', data: session });

        // A birth with offspring creates the calf: its animal.created, the birth's event.created, animal.born.
        const dam = await t().request<Animal>('POST', `/v1/farms/${farmId}/animals`, {
          key,
          body: { species: 'cattle', name: 'Clover', tag: 'D1', sex: 'female' },
        });
        assert.equal(dam.status, 201, JSON.stringify(dam.body));
        expected.push({ type: 'animal.created', data: dam.body });
        const birth = await t().request<{ id: string }>('POST', `/v1/farms/${farmId}/events`, {
          key,
          body: {
            type: 'birth',
            subject_id: dam.body.id,
            at: '2026-06-01T06:00:00Z',
            data: { offspring: [{ sex: 'female', tag: 'C1', alive: true }] },
          },
        });
        assert.equal(birth.status, 201, JSON.stringify(birth.body));
        expected.push({ type: 'event.created', data: birth.body });
        const herd = await t().request<List<Animal>>('GET', `/v1/farms/${farmId}/animals?limit=100`, { key });
        const calf = herd.body.data.find((a) => a.tag === 'C1');
        assert.ok(calf, 'the birth created the calf');
        expected.push({ type: 'animal.created', data: calf });
        expected.push({
          type: 'animal.born',
          data: { animal: calf, dam_id: dam.body.id, event_id: birth.body.id },
        });

        const device = await t().request<NewDevice>('POST', `/v1/farms/${farmId}/devices`, {
          key,
          body: { type: 'house', name: 'House 1' },
        });
        assert.equal(device.status, 201, JSON.stringify(device.body));
        const { device_key, ...deviceWithoutKey } = device.body;
        deviceKey = device_key;
        expected.push({ type: 'device.created', data: deviceWithoutKey });

        const finish = async (status: 'done' | 'failed', command: string) => {
          const queued = await t().request<Command>('POST', `/v1/devices/${device.body.id}/commands`, {
            key,
            body: { command, ...(command === 'doors.open' ? { params: { doors: [1] } } : {}) },
          });
          assert.equal(queued.status, 201, JSON.stringify(queued.body));
          expected.push({ type: 'command.queued', data: queued.body });
          await t().request('GET', '/v1/device/commands', { key: deviceKey });
          const answered = await t().request('POST', `/v1/device/commands/${queued.body.id}`, {
            key: deviceKey,
            body: { status, result: { ok: status === 'done' } },
          });
          assert.equal(answered.status, 200, JSON.stringify(answered.body));
          expected.push({ type: `command.${status}`, data: answered.body });
        };
        await finish('done', 'doors.open');
        await finish('failed', 'move.start');

        const report = await t().request('POST', '/v1/ingest', {
          key: deviceKey,
          body: { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] },
        });
        assert.equal(report.status, 200, JSON.stringify(report.body));
        const alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farmId}/alerts`, { key });
        const [alert] = alerts.body.data;
        assert.ok(alert, 'the report opened an alert');
        expected.push({ type: 'alert.created', data: alert });
        const resolved = await t().request('POST', `/v1/alerts/${alert.id}/resolve`, { key });
        assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
        expected.push({ type: 'alert.resolved', data: resolved.body });

        await waitFor('every event', () => rcv.requests.length >= expected.length);
      } finally {
        await worker.stop();
      }
      // Anything still undispatched or due (a duplicate would be) is sent now.
      assert.equal(await deliverDueNow(t().database, t().config), 0, 'nothing left to send');

      assert.deepEqual(new Set(expected.map((e) => e.type)), new Set(WEBHOOK_EVENTS), 'all fourteen types');
      assert.equal(rcv.requests.length, expected.length, 'each event delivered once');
      const payloads = rcv.requests.map((r) => JSON.parse(r.body));
      assert.equal(new Set(payloads.map((p) => p.id)).size, expected.length, 'no event id twice');
      for (const req of rcv.requests) {
        const signature = String(req.headers['service-signature']);
        assert.ok(hmacMatches(secret, signature, req.body), 'HMAC recomputed in the test');
        assert.ok(await verifyLikeAReceiver(secret, signature, req.body), 'independent verifier');
        assert.equal(req.headers['service-event-id'], JSON.parse(req.body).id);
      }
      const sortKey = (e: { type: string; data: unknown }) => `${e.type} ${(e.data as { id?: string }).id}`;
      assert.deepEqual(
        payloads
          .map((p) => ({ type: p.type, data: p.data }))
          .sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        [...expected].sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        'each payload carries the full API object the operation returned',
      );
      for (const p of payloads) assert.equal(p.farm_id, farmId);
      assert.ok(deviceKey.startsWith('rd_'));
      assert.ok(!rcv.requests.some((r) => r.body.includes(deviceKey)), 'never the device key');
    });
  },
  { webhookAllowPrivate: true },
);
