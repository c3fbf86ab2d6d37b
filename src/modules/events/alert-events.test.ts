/**
 * The alert engine's farm events (`alert.escalated`: an alert's rule, reason and reading values) are alert
 * data (issue 34, "A leak by webhook": no side door): a key with records:read but not alerts:read sees none
 * of them through any path that reads farm events, and a key with alerts:read sees them. On both engines.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp, waitFor } from '../../../test/harness.ts';
import { baseUrl, connect, ERAS, ok } from '../../../test/mcp.ts';
import type { List, NewKey } from '../../../test/replies.ts';
import { openSse } from '../../../test/sse.ts';
import { ALERT_FARM_EVENT_TYPES } from '../../domain/webhook-events.ts';
import { dispatchOutbox } from '../webhooks/dispatch.ts';
import type { FarmEvent } from './schemas.ts';
import { recordFarmEvent } from './service.ts';

const [ESCALATED] = ALERT_FARM_EVENT_TYPES;

forEachEngine(
  'alert farm events need alerts:read',
  (t) => {
    let base = '';
    before(async () => {
      // test/mcp.ts's baseUrl listens once per app; the stream test reads from the same port.
      base = await baseUrl(t());
    });

    /** A farm with an animal, a note about it and, newer, an escalation about it as the alert engine writes it. */
    async function setup(tApp: TestApp) {
      const acct = await tApp.account('Alert events');
      const key = acct.live_key;
      const farm = (await make.farm(tApp, key, { name: 'Escalations' })).id;
      const records = await make.posted<NewKey>(tApp, key, '/v1/keys', {
        // devices:read too: get_animal shows an animal's trackers.
        name: 'records only',
        permissions: { records: 'read', devices: 'read' },
      });
      const alerts = await make.posted<NewKey>(tApp, key, '/v1/keys', {
        name: 'records and alerts',
        permissions: { records: 'read', devices: 'read', alerts: 'read' },
      });
      const animal = await make.animal(tApp, key, farm, { species: 'cattle', name: 'Daisy' });
      const note = await make.created<FarmEvent>(tApp, key, `/v1/farms/${farm}/events`, {
        type: 'note',
        subject_type: 'animal',
        subject_id: animal.id,
        data: { note: 'limping' },
        at: '2026-05-01T08:00:00Z',
      });
      const escalation = await recordFarmEvent(tApp.database.db, farm, {
        type: ESCALATED,
        subject_type: 'animal',
        subject_id: animal.id,
        data: {
          alert_id: 'alrt_x',
          rule: 'body_temp',
          from: 'watch',
          to: 'urgent',
          reason: '41.2 °C',
          value: 41.2,
        },
        at: Date.parse('2026-05-01T09:00:00Z'),
      });
      return { key, farm, records: records.key, alerts: alerts.key, animal: animal.id, note, escalation };
    }

    test('the event list (pages stay full), GET /v1/events/{id}, update and delete', async () => {
      const s = await setup(t());
      const list = (key: string, query = '') =>
        t().request<List<FarmEvent>>('GET', `/v1/farms/${s.farm}/events${query}`, { key });
      const hidden = await list(s.records, '?limit=1');
      assert.equal(hidden.status, 200);
      assert.deepEqual(
        hidden.body.data.map((e) => e.id),
        [s.note.id],
        'a page of one is the note, not an empty page',
      );
      assert.equal(hidden.body.has_more, false);
      assert.deepEqual((await list(s.records, `?type=${ESCALATED}`)).body.data, []);
      const shown = await list(s.alerts);
      assert.deepEqual(
        shown.body.data.map((e) => e.id),
        [s.escalation.id, s.note.id],
      );
      expectError(
        await t().request('GET', `/v1/events/${s.escalation.id}`, { key: s.records }),
        404,
        'not_found',
      );
      const one = await t().request<FarmEvent>('GET', `/v1/events/${s.escalation.id}`, { key: s.alerts });
      assert.equal(one.status, 200);
      assert.equal(one.body.data.rule, 'body_temp');
      const writer = await make.posted<NewKey>(t(), s.key, '/v1/keys', {
        name: 'records writer',
        permissions: { records: 'write' },
      });
      expectError(
        await t().request('PATCH', `/v1/events/${s.escalation.id}`, { key: writer.key, body: { data: {} } }),
        404,
        'not_found',
      );
      expectError(
        await t().request('DELETE', `/v1/events/${s.escalation.id}`, { key: writer.key }),
        404,
        'not_found',
      );
      assert.equal((await t().request('GET', `/v1/events/${s.escalation.id}`, { key: s.key })).status, 200);
      // Nor can a client log one, which would pass for the alert engine's.
      const forged = expectError(
        await t().request('POST', `/v1/farms/${s.farm}/events`, { key: s.key, body: { type: ESCALATED } }),
        400,
        'invalid_request',
      );
      assert.equal(forged.param, 'type');
      assert.match(forged.message, /alert engine/);
      expectError(
        await t().request('PATCH', `/v1/events/${s.note.id}`, { key: s.key, body: { type: ESCALATED } }),
        400,
        'invalid_request',
      );
    });

    test('the events export', async () => {
      const s = await setup(t());
      const exported = async (key: string) => {
        const res = await t().app.inject({
          method: 'GET',
          url: `/v1/farms/${s.farm}/events/export?format=ndjson`,
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.body
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as FarmEvent).id);
      };
      assert.deepEqual(await exported(s.records), [s.note.id]);
      assert.deepEqual(await exported(s.alerts), [s.escalation.id, s.note.id]);
    });

    test("an animal's history over MCP (get_animal)", async () => {
      const s = await setup(t());
      const history = async (key: string) => {
        const mcp = await connect(t(), key, ERAS[0]!);
        try {
          const got = await ok(mcp.client, 'get_animal', { animal_id: s.animal });
          return (got.history as FarmEvent[]).map((e) => e.id);
        } finally {
          await mcp.close();
        }
      };
      assert.deepEqual(await history(s.records), [s.note.id]);
      assert.deepEqual(await history(s.alerts), [s.escalation.id, s.note.id]);
    });

    test('the live stream: event.created of an escalation only to a key that may read alerts', async () => {
      const acct = await t().account('Alert events stream');
      const farm = (await make.farm(t(), acct.live_key, { name: 'Streamed' })).id;
      const keyWith = async (permissions: Record<string, string>) =>
        (await make.posted<NewKey>(t(), acct.live_key, '/v1/keys', { name: 'k', permissions })).key;
      const recordsOnly = await openSse(
        `${base}/v1/farms/${farm}/stream`,
        await keyWith({ records: 'read' }),
      );
      const withAlerts = await openSse(
        `${base}/v1/farms/${farm}/stream`,
        await keyWith({ records: 'read', alerts: 'read' }),
      );
      try {
        await waitFor('both streams open', () => recordsOnly.retry !== null && withAlerts.retry !== null);
        const escalation = await recordFarmEvent(t().database.db, farm, {
          type: ESCALATED,
          data: { rule: 'water.tank_pct', reason: '3%' },
        });
        const note = await make.created<FarmEvent>(t(), acct.live_key, `/v1/farms/${farm}/events`, {
          type: 'note',
          data: { note: 'after' },
        });
        const seen = (stream: typeof recordsOnly) => stream.events.map((e) => e.json?.data?.id);
        await waitFor(
          'the note on both',
          () => seen(recordsOnly).includes(note.id) && seen(withAlerts).includes(note.id),
        );
        assert.deepEqual(seen(recordsOnly), [note.id], 'the escalation stays out');
        assert.deepEqual(seen(withAlerts), [escalation.id, note.id]);
      } finally {
        recordsOnly.close();
        withAlerts.close();
      }
    });

    test('webhooks: event.created of an escalation only to a webhook whose creator could read alerts', async () => {
      const acct = await t().account('Alert events webhooks');
      const farm = (await make.farm(t(), acct.live_key, { name: 'Hooked' })).id;
      const keyWith = async (permissions: Record<string, string>) =>
        (await make.posted<NewKey>(t(), acct.live_key, '/v1/keys', { name: 'k', permissions })).key;
      const hook = (key: string, events: string[]) =>
        make.webhook(t(), key, farm, { url: 'http://127.0.0.1:9/h', events });
      const recordsHook = await hook(await keyWith({ records: 'read', webhooks: 'write' }), ['*']);
      assert.deepEqual(recordsHook.events.includes('alert.created'), false, 'stored as what it may read');
      const alertsHook = await hook(await keyWith({ records: 'read', alerts: 'read', webhooks: 'write' }), [
        'event.created',
        'alert.created',
      ]);
      const everything = await hook(acct.live_key, ['*']);
      const escalation = await recordFarmEvent(t().database.db, farm, {
        type: ESCALATED,
        data: { reason: 'x' },
      });
      const note = await recordFarmEvent(t().database.db, farm, { type: 'note', data: { note: 'y' } });
      await dispatchOutbox(t().database.db);
      const deliveries = await t()
        .database.db.selectFrom('webhook_deliveries')
        .innerJoin('outbox', 'outbox.id', 'webhook_deliveries.event_id')
        .select(['webhook_deliveries.webhook_id', 'outbox.data'])
        .where('webhook_deliveries.farm_id', '=', farm)
        .where('webhook_deliveries.event_type', '=', 'event.created')
        .execute();
      const to = (id: string) =>
        deliveries
          .filter((d) => d.webhook_id === id)
          .map((d) => (JSON.parse(d.data) as FarmEvent).id)
          .sort();
      assert.deepEqual(to(recordsHook.id), [note.id]);
      assert.deepEqual(to(alertsHook.id), [escalation.id, note.id].sort());
      assert.deepEqual(to(everything.id), [escalation.id, note.id].sort());
    });
  },
  { webhookAllowPrivate: true },
);
