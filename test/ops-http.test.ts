/**
 * Operating the service over HTTP: /livez, /readyz and /healthz, and /metrics (who may read it, and that
 * its values move when the matching thing happens). Both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { farm } from './factories.ts';
import { ENGINES, forEachEngine, startTestApp, type TestApp, waitFor } from './harness.ts';
import type { ErrorReply, Health, NewDevice, Readiness } from './replies.ts';

/** The value of one series in a Prometheus text page (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

forEachEngine('probes', (t) => {
  test('/livez answers 200 without touching the database', async () => {
    const res = await t().request('GET', '/livez');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true });
  });

  test('/readyz is 200 with the database and migrations checks passing', async () => {
    const res = await t().request<Readiness>('GET', '/readyz');
    assert.equal(res.status, 200);
    assert.equal(res.body.ready, true);
    assert.deepEqual(res.body.failing, []);
    assert.equal(res.body.checks.database!.ok, true);
    assert.equal(res.body.checks.migrations!.ok, true);
  });

  test('/healthz keeps ok, engine and version and adds the database check', async () => {
    const res = await t().request<Health>('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.engine, t().engine);
    assert.equal(typeof res.body.version, 'string');
    assert.equal(res.body.database, 'ok');
  });
});

forEachEngine(
  'metrics',
  (t) => {
    test('/metrics without a token answers loopback only, and not through a proxy', async () => {
      const text = await scrape(t());
      assert.match(text, /# TYPE farmstead_http_requests_total counter/);
      assert.match(text, /nodejs_eventloop_lag_seconds/);
      assert.match(text, /process_resident_memory_bytes/);
      const proxied = await t().request<ErrorReply>('GET', '/metrics', {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      assert.equal(proxied.status, 404);
      assert.equal(proxied.body.error.code, 'not_found');
      const remote = await t().app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
      assert.equal(remote.statusCode, 404);
    });

    test('HTTP requests are counted by route pattern and status', async () => {
      const before = sample(await scrape(t()), 'farmstead_http_requests_total', {
        route: '/v1/farms/:farm',
        status: '401',
      });
      await t().request('GET', '/v1/farms/farm_nothing');
      const after = await scrape(t());
      assert.equal(
        sample(after, 'farmstead_http_requests_total', { route: '/v1/farms/:farm', status: '401' }),
        before + 1,
      );
      assert.ok(
        sample(after, 'farmstead_http_request_duration_seconds_count', { route: '/v1/farms/:farm' }) >= 1,
      );
    });

    test('a device report moves readings, reports, alerts opened and resolved, commands and query times', async () => {
      const acct = await t().sharedAccount();
      const farmId = (await farm(t(), acct.live_key)).id;
      const house = await t().request<NewDevice>('POST', `/v1/farms/${farmId}/devices`, {
        key: acct.live_key,
        body: { type: 'house', name: 'House 9' },
      });
      assert.equal(house.status, 201);
      const m0 = await scrape(t());
      const urgent = { rule: 'house.ammonia', severity: 'urgent' };

      const queued = await t().request('POST', `/v1/devices/${house.body.id}/commands`, {
        key: acct.live_key,
        body: { command: 'lights.set', params: { mode: 'on' } },
      });
      assert.equal(queued.status, 201, JSON.stringify(queued.body));
      const report = await t().request('POST', '/v1/ingest', {
        key: house.body.device_key,
        body: {
          readings: [
            { metric: 'climate.nh3_ppm', value: 30 },
            { metric: 'climate.temp_c', value: 21 },
          ],
        },
      });
      assert.equal(report.status, 200, JSON.stringify(report.body));
      const m1 = await scrape(t());
      assert.equal(
        sample(m1, 'farmstead_readings_ingested_total') - sample(m0, 'farmstead_readings_ingested_total'),
        2,
      );
      assert.equal(
        sample(m1, 'farmstead_device_reports_total', { transport: 'http' }) -
          sample(m0, 'farmstead_device_reports_total', { transport: 'http' }),
        1,
      );
      assert.equal(
        sample(m1, 'farmstead_alerts_opened_total', urgent) -
          sample(m0, 'farmstead_alerts_opened_total', urgent),
        1,
      );
      for (const status of ['queued', 'delivered']) {
        assert.equal(
          sample(m1, 'farmstead_commands_total', { status }) -
            sample(m0, 'farmstead_commands_total', { status }),
          1,
          status,
        );
      }
      assert.ok(
        sample(m1, 'farmstead_db_query_duration_seconds_count', { engine: t().engine, outcome: 'ok' }) >
          sample(m0, 'farmstead_db_query_duration_seconds_count', { engine: t().engine, outcome: 'ok' }),
      );
      assert.ok(sample(m1, 'farmstead_db_pool_connections', { state: 'total' }) >= 1);

      await t().request('POST', '/v1/ingest', {
        key: house.body.device_key,
        body: { readings: [{ metric: 'climate.nh3_ppm', value: 5 }] },
      });
      const m2 = await scrape(t());
      assert.equal(
        sample(m2, 'farmstead_alerts_resolved_total', urgent) -
          sample(m1, 'farmstead_alerts_resolved_total', urgent),
        1,
      );
    });

    test('the webhook backlog is read on scrape: pending deliveries and the oldest age', async () => {
      const acct = await t().sharedAccount();
      const farmId = (await farm(t(), acct.live_key)).id;
      const hook = await t().request('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: 'http://127.0.0.1:9/farmstead', events: ['*'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      await t().request('POST', `/v1/farms/${farmId}/animals`, {
        key: acct.live_key,
        body: { species: 'cattle', name: 'Daisy' },
      });
      // No worker runs in tests: the event waits, in the outbox or as a pending delivery.
      const text = await scrape(t());
      const waiting =
        sample(text, 'farmstead_outbox_undispatched') + sample(text, 'farmstead_webhook_deliveries_pending');
      assert.ok(
        waiting >= 1,
        text
          .split('\n')
          .filter((l) => l.includes('outbox'))
          .join('\n'),
      );
      assert.ok(sample(text, 'farmstead_webhook_oldest_pending_age_seconds') >= 0);
    });
  },
  { webhookAllowPrivate: true },
);

forEachEngine(
  'metrics behind a token',
  (t) => {
    test('with FARMSTEAD_METRICS_TOKEN, /metrics needs the bearer token, from anywhere', async () => {
      const none = await t().app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(none.statusCode, 404);
      const wrong = await t().app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer not-the-token-at-all' },
      });
      assert.equal(wrong.statusCode, 404);
      const right = await t().app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: { authorization: 'Bearer metrics-token-0123456789' },
      });
      assert.equal(right.statusCode, 200);
      assert.match(String(right.headers['content-type']), /^text\/plain/);
    });
  },
  { metricsToken: 'metrics-token-0123456789' },
);

for (const engine of ENGINES) {
  test(`/readyz turns 503 naming the database when it goes away [${engine}]`, async () => {
    const t = await startTestApp(engine);
    try {
      assert.equal((await t.request('GET', '/readyz')).status, 200);
      if (engine === 'sqlite') {
        // The embedded database has no server to lose; a closed connection is the same failure.
        await t.database.close();
        const res = await t.request<Readiness>('GET', '/readyz');
        assert.equal(res.status, 503);
        assert.ok(res.body.failing.includes('database'));
        assert.equal(res.body.checks.database!.ok, false);
        assert.equal((await t.request('GET', '/healthz')).status, 503);
        assert.equal((await t.request('GET', '/livez')).status, 200);
        return;
      }
      // PostgreSQL: refuse new connections to the app's database and end the open ones, then allow them again.
      const dbName = new URL(t.config.databaseUrl ?? '').pathname.slice(1);
      const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
      await admin.connect();
      try {
        await admin.query(`alter database ${dbName} allow_connections false`);
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [
          dbName,
        ]);
        const down = await waitFor('readyz 503', async () => {
          const res = await t.request<Readiness>('GET', '/readyz');
          return res.status === 503 ? res : null;
        });
        assert.deepEqual(down.body.failing.includes('database'), true);
        assert.equal(typeof down.body.checks.database!.message, 'string');
        assert.equal((await t.request('GET', '/livez')).status, 200);
        await admin.query(`alter database ${dbName} allow_connections true`);
        await waitFor('readyz 200 again', async () => (await t.request('GET', '/readyz')).status === 200);
      } finally {
        await admin.query(`alter database ${dbName} allow_connections true`);
        await admin.end();
      }
    } finally {
      await t.close().catch(() => {});
    }
  });
}
