/**
 * The live stream, GET /v1/farms/{farm}/stream, over a real socket on both engines: events as they happen
 * (the webhook payload of the same outbox row), resume with Last-Event-ID without loss or repeats, only the
 * caller's farm and the types its key may read, keep-alive comments, the reset answer for an id it cannot
 * resume after, and the commit-order guarantee (an event whose id is older but which commits later is not
 * skipped).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { baseUrl, expectError, forEachEngine, type TestApp, waitFor } from '../../../test/harness.ts';
import { signedInPerson } from '../../../test/people.ts';
import type { NewKey } from '../../../test/replies.ts';
import { openSse, type SseStream } from '../../../test/sse.ts';
import { newId } from '../../domain/ids.ts';
import type { FarmEvent } from '../events/schemas.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { payloadOf } from '../webhooks/signing.ts';

const KEEP_ALIVE_MS = 100;

forEachEngine(
  'live stream',
  (t) => {
    let base = '';
    before(async () => {
      await t().app.listen({ host: '127.0.0.1', port: 0 });
      const address = t().app.server.address();
      base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    const open = (farmId: string, key: string, headers: Record<string, string> = {}, query = '') =>
      openSse(`${base}/v1/farms/${farmId}/stream${query}`, key, headers);

    async function setup() {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key, { name: 'Stream farm' });
      return { key: acct.live_key, farmId: farm.id };
    }

    /** Logs a farm event (an `event.created` on the stream) and returns it. */
    const logEvent = (t: TestApp, key: string, farmId: string, note: string) =>
      make.created<FarmEvent>(t, key, `/v1/farms/${farmId}/events`, { type: 'note', data: { note } });

    async function openReady(farmId: string, key: string, headers: Record<string, string> = {}, query = '') {
      const stream = await open(farmId, key, headers, query);
      assert.equal(stream.status, 200, stream.body);
      // The opening frames arrive at once (no waiting for a first event to flush the head).
      await waitFor('the opening frame', () => stream.retry !== null);
      return stream;
    }

    test('a reading that crosses a rule arrives live as alert.created: the webhook payload, id and type', async () => {
      const { key, farmId } = await setup();
      const house = await make.device(t(), key, farmId, { type: 'house', name: 'House 7' });
      const stream = await openReady(farmId, key, { 'accept-encoding': 'gzip, br' });
      try {
        assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
        assert.equal(stream.headers['content-encoding'], undefined, 'a stream is never compressed');
        assert.equal(stream.headers['cache-control'], 'no-cache, no-transform');
        // A fresh stream's position is the farm's newest event (device.created), sent without an event.
        const [created] = await t()
          .database.db.selectFrom('outbox')
          .select('id')
          .where('farm_id', '=', farmId)
          .where('type', '=', 'device.created')
          .execute();
        assert.equal(stream.lastEventId, created?.id);
        assert.equal(stream.events.length, 0, 'no old events on a fresh stream');

        const sent = await make.report(t(), house.device_key, {
          readings: [{ metric: 'climate.nh3_ppm', value: 26 }],
        });
        assert.equal(sent.status, 200);
        const event = await stream.next('alert.created');
        const row = await t()
          .database.db.selectFrom('outbox')
          .select(['id', 'type', 'farm_id', 'created_at', 'data'])
          .where('farm_id', '=', farmId)
          .where('type', '=', 'alert.created')
          .executeTakeFirstOrThrow();
        assert.equal(event.id, row.id);
        assert.equal(event.data, payloadOf(row), 'the same bytes a webhook receives');
        assert.equal(event.json.type, 'alert.created');
        assert.equal(event.json.data.subject_id, house.id);
        assert.equal(event.json.data.severity, 'urgent');
        assert.equal(stream.lastEventId, row.id);
      } finally {
        stream.close();
      }
    });

    test('resume with Last-Event-ID (header or query): every event after it once, none lost, none repeated', async () => {
      const { key, farmId } = await setup();
      const first = await openReady(farmId, key);
      const early = [];
      for (const note of ['one', 'two']) early.push(await logEvent(t(), key, farmId, note));
      await waitFor('both events', () => first.events.length === 2);
      const resumeFrom = first.lastEventId;
      first.close();
      await first.ended;

      // Written while no client listens.
      const missed = [];
      for (const note of ['three', 'four', 'five']) missed.push(await logEvent(t(), key, farmId, note));

      const again = await openReady(farmId, key, { 'last-event-id': resumeFrom });
      try {
        await waitFor('the missed events', () => again.events.length >= 3);
        assert.deepEqual(
          again.events.map((e) => e.json.data.id),
          missed.map((e) => e.id),
          'exactly the missed events, in order',
        );
        const live = await logEvent(t(), key, farmId, 'six');
        await waitFor('the live event', () => again.events.length === 4);
        assert.equal(again.events[3]?.json.data.id, live.id);
        const seen = [...first.events, ...again.events].map((e) => e.id);
        assert.equal(new Set(seen).size, seen.length, 'no event twice');
      } finally {
        again.close();
      }

      // The query parameter does the same for clients that cannot set headers; the header wins over it.
      const five = again.events[2]?.id ?? '';
      const byQuery = await openReady(farmId, key, {}, `?last_event_id=${resumeFrom}`);
      const both = await openReady(farmId, key, { 'last-event-id': five }, `?last_event_id=${resumeFrom}`);
      try {
        await waitFor('the replay', () => byQuery.events.length === 4);
        assert.deepEqual(
          byQuery.events.map((e) => e.json.data.data.note),
          ['three', 'four', 'five', 'six'],
        );
        await waitFor('the replay after five', () => both.events.length === 1);
        assert.equal(both.events[0]?.json.data.data.note, 'six');
      } finally {
        byQuery.close();
        both.close();
      }
      assert.deepEqual(
        first.events.map((e) => e.json.data.id),
        early.map((e) => e.id),
      );
    });

    test('a backlog larger than one page resumes whole and in order, at the pace the socket takes it', async () => {
      const { key, farmId } = await setup();
      const first = await openReady(farmId, key);
      const mark = await logEvent(t(), key, farmId, 'mark');
      await stream_next(first, mark.id);
      const resumeFrom = first.lastEventId;
      first.close();
      // 1,200 events (several pages, far more than a socket buffer) written while nobody listens.
      const padding = 'x'.repeat(400);
      // Written as emitEvent writes them, in bulk (one statement per 200).
      const now = Date.now();
      const rows = Array.from({ length: 1200 }, (_, i) => ({
        id: newId('outbox', now),
        farm_id: farmId,
        type: 'event.created',
        data: JSON.stringify({ i, padding }),
        created_at: now,
        dispatched_at: null,
      }));
      for (let i = 0; i < rows.length; i += 200) {
        await t()
          .database.db.insertInto('outbox')
          .values(rows.slice(i, i + 200))
          .execute();
      }
      const again = await openReady(farmId, key, { 'last-event-id': resumeFrom });
      try {
        await waitFor('the whole backlog', () => again.events.length >= 1200, 30_000);
        assert.deepEqual(
          again.events.map((e) => e.json.data.i),
          Array.from({ length: 1200 }, (_, i) => i),
        );
        const live = await logEvent(t(), key, farmId, 'live again');
        await stream_next(again, live.id);
        assert.equal(again.events.length, 1201);
      } finally {
        again.close();
      }
    });

    test('a live client that stops reading is ended once it is 1 MiB behind (it resumes later with Last-Event-ID)', async () => {
      const { key, farmId } = await setup();
      const url = new URL(`${base}/v1/farms/${farmId}/stream`);
      const socket = connect(Number(url.port), url.hostname);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('error', () => {});
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      await waitFor('the opening frame', () => received.includes('retry:'));
      const open = t().app.streams.count();
      // The client stops reading; the events keep coming (each in its own transaction: live fan-out).
      socket.pause();
      const big = 'x'.repeat(256 * 1024);
      let written = 0;
      await waitFor(
        'the stream to be ended',
        async () => {
          if (t().app.streams.count() < open) return true;
          if (written < 200) {
            await emitEvent(t().database.db, farmId, 'event.created', { n: written++, big });
          }
          return false;
        },
        60_000,
      );
      assert.ok(written > 4, `ended after ${written} events of 256 KiB`);
      socket.resume();
      await waitFor('the end of the response', () => received.includes('reads too slowly'));
      socket.destroy();
    });

    test("another farm's and another account's events never appear; their streams are 404", async () => {
      const { key, farmId } = await setup();
      const acct = await t().sharedAccount();
      const sibling = await make.farm(t(), acct.live_key, { name: 'Sibling' });
      const stranger = await t().account('Stranger');
      const theirs = await make.farm(t(), stranger.live_key, { name: 'Theirs' });
      const mine = await openReady(farmId, key);
      try {
        await logEvent(t(), key, sibling.id, 'sibling');
        await logEvent(t(), stranger.live_key, theirs.id, 'stranger');
        await make.animal(t(), stranger.live_key, theirs.id, { species: 'goat' });
        const own = await logEvent(t(), key, farmId, 'mine');
        await stream_next(mine, own.id);
        assert.deepEqual(
          mine.events.map((e) => e.json.farm_id),
          [farmId],
        );
      } finally {
        mine.close();
      }
      const foreign = await open(theirs.id, key);
      await foreign.ended;
      assert.equal(foreign.status, 404);
      assert.equal(JSON.parse(foreign.body).error.code, 'not_found');
      // Through inject too: the refusal is the ordinary Error object.
      expectError(await t().request('GET', `/v1/farms/${theirs.id}/stream`, { key }), 404, 'not_found');
    });

    test('a test-mode farm streams to the test key only; a live key is 404 there', async () => {
      const acct = await t().sharedAccount();
      expectError(
        await t().request('GET', `/v1/farms/${acct.sample_farm_id}/stream`, { key: acct.live_key }),
        404,
        'not_found',
      );
      const test_ = await make.farm(t(), acct.test_key, { name: 'Test-mode farm' });
      const stream = await openReady(test_.id, acct.test_key);
      try {
        const event = await logEvent(t(), acct.test_key, test_.id, 'in test mode');
        await stream_next(stream, event.id);
      } finally {
        stream.close();
      }
    });

    test("the sample farm's seed is not streamed (as webhooks do not get it); what follows a reset is", async () => {
      const acct = await t().account('Reset on stream');
      const stream = await openReady(acct.sample_farm_id, acct.test_key);
      try {
        const reset = await t().request('POST', `/v1/farms/${acct.sample_farm_id}/reset`, {
          key: acct.test_key,
        });
        assert.equal(reset.status, 200, JSON.stringify(reset.body));
        const after = await logEvent(t(), acct.test_key, acct.sample_farm_id, 'after the reset');
        await stream_next(stream, after.id);
        assert.deepEqual(
          stream.events.map((e) => e.json.data.id),
          [after.id],
          'only the event logged after the reset',
        );
      } finally {
        stream.close();
      }
    });

    test('keep-alive comments come on an idle stream at the configured interval', async () => {
      const { key, farmId } = await setup();
      const stream = await openReady(farmId, key);
      try {
        await waitFor('two keep-alives', () => stream.comments.filter((c) => c === 'keep-alive').length >= 2);
        assert.equal(stream.events.length, 0);
      } finally {
        stream.close();
      }
    });

    test('an id the stream cannot resume after opens with stream.reset, then goes on from now; a malformed one is 400', async () => {
      const { key, farmId } = await setup();
      const newest = await logEvent(t(), key, farmId, 'before');
      const unknown = 'msg_00000000000000000000000000';
      const stream = await openReady(farmId, key, { 'last-event-id': unknown });
      try {
        const reset = await stream.next('stream.reset');
        assert.equal(reset.json.object, 'stream_reset');
        assert.equal(reset.json.last_event_id, unknown);
        assert.match(reset.json.message, /retention/);
        const [row] = await t()
          .database.db.selectFrom('outbox')
          .select('id')
          .where('farm_id', '=', farmId)
          .orderBy('id', 'desc')
          .execute();
        assert.equal(reset.id, row?.id, 'the reset moves the client to the newest event');
        const after = await logEvent(t(), key, farmId, 'after');
        await stream_next(stream, after.id);
        assert.ok(!stream.events.some((e) => e.json?.data?.id === newest.id), 'nothing older is replayed');
      } finally {
        stream.close();
      }
      const header = expectError(
        await t().request('GET', `/v1/farms/${farmId}/stream`, { key, headers: { 'last-event-id': 'nope' } }),
        400,
        'invalid_request',
      );
      assert.equal(header.param, 'Last-Event-ID');
      const query = expectError(
        await t().request('GET', `/v1/farms/${farmId}/stream?last_event_id=x%20y`, { key }),
        400,
        'invalid_request',
      );
      assert.equal(query.param, 'last_event_id');
    });

    test('an event whose id is older but which commits later is still sent, once, and resumes correctly', async () => {
      const { key, farmId } = await setup();
      const stream = await openReady(farmId, key);
      try {
        const recent = await logEvent(t(), key, farmId, 'recent');
        await stream_next(stream, recent.id);
        // An id made a minute ago (a transaction that took long to commit) arrives after a newer one.
        const late = await emitEvent(
          t().database.db,
          farmId,
          'event.created',
          { note: 'late' },
          Date.now() - 60_000,
        );
        assert.ok(late.id < stream.lastEventId, 'the late event sorts before the one already sent');
        const got = await stream.next('event.created', (e) => e.id === late.id);
        assert.equal(got.json.data.note, 'late');
        // Resuming after the recent event gives the late one: the order is the commit order, not the ids'.
        const recentEventId = stream.events.find((e) => e.json.data.id === recent.id)?.id ?? '';
        const resumed = await openReady(farmId, key, { 'last-event-id': recentEventId });
        try {
          await waitFor('the replay after the recent event', () => resumed.events.length === 1);
          assert.equal(resumed.events[0]?.id, got.id);
        } finally {
          resumed.close();
        }
      } finally {
        stream.close();
      }
    });

    test('two transactions committing out of id order: the stream sends each when it commits, and resumes in commit order', async (ctx) => {
      // SQLite runs one write transaction at a time, so this race exists only on PostgreSQL.
      if (t().engine !== 'postgres') return ctx.skip('PostgreSQL only');
      const { key, farmId } = await setup();
      const stream = await openReady(farmId, key);
      try {
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let earlyId = '';
        // A: makes its event (the smaller id) first and commits last.
        const a = t()
          .database.db.transaction()
          .execute(async (trx) => {
            earlyId = (await emitEvent(trx, farmId, 'event.created', { note: 'A' })).id;
            await held;
          });
        await waitFor('A to write its event', () => earlyId !== '');
        const b = await emitEvent(t().database.db, farmId, 'event.created', { note: 'B' });
        assert.ok(earlyId < b.id);
        const gotB = await stream.next('event.created', (e) => e.id === b.id);
        assert.equal(stream.events.length, 1, 'A is not visible before it commits');
        release();
        await a;
        await stream.next('event.created', (e) => e.id === earlyId);
        assert.deepEqual(
          stream.events.map((e) => e.json.data.note),
          ['B', 'A'],
        );
        const resumed = await openReady(farmId, key, { 'last-event-id': gotB.id ?? '' });
        try {
          await waitFor('the replay', () => resumed.events.length === 1);
          assert.equal(resumed.events[0]?.id, earlyId, 'after B comes A: the commit order');
        } finally {
          resumed.close();
        }
      } finally {
        stream.close();
      }
    });

    test('a key restricted to records sees farm events but not alerts; a key without records is 403', async () => {
      const { key, farmId } = await setup();
      const reader = await make.posted<NewKey>(t(), key, '/v1/keys', {
        name: 'records only',
        permissions: { records: 'read' },
      });
      const noRecords = await make.posted<NewKey>(t(), key, '/v1/keys', {
        name: 'alerts only',
        permissions: { alerts: 'read' },
      });
      expectError(
        await t().request('GET', `/v1/farms/${farmId}/stream`, { key: noRecords.key }),
        403,
        'forbidden',
      );
      const house = await make.device(t(), key, farmId, { type: 'house', name: 'House 9' });
      const stream = await openReady(farmId, reader.key);
      try {
        await make.report(t(), house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 30 }] });
        const note = await logEvent(t(), key, farmId, 'after the alert');
        await stream_next(stream, note.id);
        assert.deepEqual(
          stream.events.map((e) => e.event),
          ['event.created'],
          'the alert and the device events stay out',
        );
      } finally {
        stream.close();
      }
    });

    test('a console session streams with its cookie (EventSource sends it); signing out ends the stream', async () => {
      const acct = await t().account('Stream sessions');
      // A live farm first: a session opens in live mode when the account has one.
      const farm = await make.farm(t(), acct.live_key, { name: 'Crew farm' });
      const crew = await signedInPerson(t(), acct, 'crew');
      const stream = await openSse(`${base}/v1/farms/${farm.id}/stream`, '', { cookie: crew.cookie });
      try {
        assert.equal(stream.status, 200, stream.body);
        await waitFor('the opening frame', () => stream.retry !== null);
        const event = await logEvent(t(), acct.live_key, farm.id, 'for the crew');
        await stream_next(stream, event.id);
        assert.equal((await crew.request('DELETE', '/v1/session')).status, 204);
        assert.deepEqual(await stream.ended, { clean: true });
        assert.ok(stream.comments.some((c) => /access to this farm ended/.test(c)));
      } finally {
        stream.close();
      }
    });

    test('a revoked key: its open stream ends cleanly at the next keep-alive', async () => {
      const { key, farmId } = await setup();
      const doomed = await make.posted<NewKey>(t(), key, '/v1/keys', { name: 'to revoke' });
      const stream = await openReady(farmId, doomed.key);
      const revoked = await t().request('DELETE', `/v1/keys/${doomed.id}`, { key });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      const end = await stream.ended;
      assert.equal(end.clean, true);
      assert.ok(stream.comments.some((c) => /access to this farm ended/.test(c)));
    });
  },
  { streamKeepAliveMs: KEEP_ALIVE_MS },
);

forEachEngine(
  'live streams per key',
  (t) => {
    const open = async (farmId: string, key: string) =>
      openSse(`${await baseUrl(t())}/v1/farms/${farmId}/stream`, key);
    const openReady = async (farmId: string, key: string) => {
      const stream = await open(farmId, key);
      assert.equal(stream.status, 200, stream.body);
      return stream;
    };
    async function setup() {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key, { name: 'Streams per key' });
      return { key: acct.live_key, farmId: farm.id };
    }

    test('a key holds at most FARMSTEAD_MAX_STREAMS_PER_KEY streams on a process: one more is 429; a closed one frees its slot', async () => {
      const { key, farmId } = await setup();
      const own = await make.posted<NewKey>(t(), key, '/v1/keys', { name: 'streams' });
      const streams = [await openReady(farmId, own.key), await openReady(farmId, own.key)];
      const third = await open(farmId, own.key);
      assert.equal(third.status, 429, third.body);
      assert.match(third.body, /rate_limited/);
      assert.equal(third.headers['retry-after'], '60');
      // Another key is counted apart.
      const other = await openReady(farmId, key);
      streams[0]?.close();
      await waitFor('the slot freed', async () => {
        const again = await open(farmId, own.key);
        if (again.status !== 200) return false;
        streams.push(again);
        return true;
      });
      for (const stream of [...streams, other]) stream.close();
    });
  },
  { streamKeepAliveMs: KEEP_ALIVE_MS, maxStreamsPerKey: 2 },
);

/** Waits for the event whose data is the record `id`. */
function stream_next(stream: SseStream, id: string) {
  return waitFor(`the event of ${id}`, () => stream.events.find((e) => e.json?.data?.id === id));
}
