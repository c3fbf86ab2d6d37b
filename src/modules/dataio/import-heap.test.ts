/**
 * The CSV import at its documented limits, on a real server started as `npm start` starts it (its Node flags:
 * the 256 MB heap cap), on each engine (issue 34, "A crash by CSV"):
 *  - 100,000 rows of 9 columns (about 14 MB) are imported, and every one is stored: the animals export,
 *    itself streamed under the same cap, gives back exactly those rows; the server is still up;
 *  - a body whose Content-Length is above 20 MiB is refused with 413 before it is read: the answer comes
 *    while the client has sent only a few bytes of it;
 *  - a body sent without a length (chunked) is refused with 413 once it passes 20 MiB: the answer comes
 *    while the client has not ended it.
 * The CSV is generated and streamed by the test, never held whole.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse';
import { ENGINES, serverDatabase } from '../../../test/engines.ts';
import { createAccountDirect, npmStartNodeArgs, type Server, startServer } from '../../../test/processes.ts';
import { IMPORT_BODY_LIMIT_BYTES, IMPORT_MAX_ROWS, type ImportResult } from './schemas.ts';

const COLUMNS = 'species,name,tag,eid,sex,breed,birth_date,notes,fields';

/** Row i of the file: 9 columns, about 140 bytes, quoted cells and JSON `fields` as a spreadsheet has them. */
function row(i: number): string {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return `cattle,Cow ${i},T${i},${982_000_000_000_000 + i},female,Angus cross,2021-03-${day},"Bought at the autumn sale, lot ${i % 300}","{""colour"":""red"",""weight_kg"":${400 + (i % 200)}}"\n`;
}

/** The file, generated as it is sent: a chunk of rows at a time. */
async function* csvChunks(rows: number): AsyncGenerator<Uint8Array> {
  yield Buffer.from(`${COLUMNS}\n`);
  for (let i = 0; i < rows; i += 1000) {
    let text = '';
    for (let j = i; j < Math.min(rows, i + 1000); j++) text += row(j);
    yield Buffer.from(text);
  }
}

/** A request whose body the test writes itself; resolves with the answer as soon as the server gives one. */
function rawRequest(
  url: string,
  path: string,
  headers: Record<string, string>,
  write: (req: http.ClientRequest) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: 'POST', headers });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    // The server may close the connection on a body it refused while the test still writes.
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
    write(req);
  });
}

test('the test server runs with the heap cap npm start gives it', () => {
  assert.ok(
    npmStartNodeArgs().some((flag) => /^--max-old-space-size=\d+$/.test(flag)),
    `npm start's node flags: ${npmStartNodeArgs().join(' ')}`,
  );
});

for (const engine of ENGINES) {
  describe(`[${engine}] the CSV import at its limits, under the production heap cap`, () => {
    let server: Server;
    let dropDatabase: (() => Promise<void>) | null = null;
    let key: string;
    let farmId: string;

    before(async () => {
      const made = await serverDatabase(engine);
      dropDatabase = made.drop;
      const database = made.env;
      key = (await createAccountDirect(database, 'Import at the limits')).live_key;
      server = await startServer(
        { ...database, FARMSTEAD_MQTT_PORT: 'off', LOG_LEVEL: 'warn' },
        { nodeArgs: npmStartNodeArgs() },
      );
      const res = await fetch(`${server.url}/v1/farms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'The big herd' }),
      });
      const farm = (await res.json()) as { id: string };
      assert.equal(res.status, 201, JSON.stringify(farm));
      farmId = farm.id;
    });

    after(async () => {
      await server?.stop();
      await dropDatabase?.();
    });

    test(`${IMPORT_MAX_ROWS.toLocaleString('en')} rows of 9 columns are imported and every one is stored`, async () => {
      let sent = 0;
      const body = ReadableStream.from(
        (async function* () {
          for await (const chunk of csvChunks(IMPORT_MAX_ROWS)) {
            sent += chunk.length;
            yield chunk;
          }
        })(),
      );
      const res = await fetch(`${server.url}/v1/farms/${farmId}/animals/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      assert.equal(res.status, 200, text.slice(0, 500));
      assert.ok(sent > 13 * 1024 * 1024 && sent < IMPORT_BODY_LIMIT_BYTES, `the file is ${sent} bytes`);
      const result = JSON.parse(text) as ImportResult;
      assert.equal(result.rows, IMPORT_MAX_ROWS);
      assert.equal(result.created, IMPORT_MAX_ROWS);
      assert.equal(result.error_count, 0);
      assert.equal(result.results.length, IMPORT_MAX_ROWS);

      // Every row is stored as sent: the export (streamed under the same cap) gives each tag once.
      const exported = await fetch(`${server.url}/v1/farms/${farmId}/animals/export?format=csv`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(exported.status, 200);
      const seen = new Set<string>();
      const records = Readable.fromWeb(exported.body as WebReadableStream).pipe(parse({ columns: true }));
      for await (const record of records as AsyncIterable<Record<string, string>>) {
        seen.add(record.tag ?? '');
        if (record.tag === 'T4321') {
          assert.equal(record.name, 'Cow 4321');
          assert.equal(record.eid, String(982_000_000_004_321));
          assert.equal(record.notes, 'Bought at the autumn sale, lot 121');
          assert.deepEqual(JSON.parse(record.fields ?? ''), { colour: 'red', weight_kg: 521 });
        }
      }
      assert.equal(seen.size, IMPORT_MAX_ROWS);
      assert.ok(seen.has('T0') && seen.has(`T${IMPORT_MAX_ROWS - 1}`));
      assert.equal((await fetch(`${server.url}/livez`)).status, 200, 'the server is still up');
    });

    test('a Content-Length above 20 MiB is 413 before the body is read', async () => {
      const answer = await rawRequest(
        server.url,
        `/v1/farms/${farmId}/animals/import`,
        {
          authorization: `Bearer ${key}`,
          'content-type': 'text/csv',
          'content-length': String(IMPORT_BODY_LIMIT_BYTES + 1),
        },
        // Only the header row: the server must answer without waiting for the rest.
        (req) => req.write(`${COLUMNS}\n`),
      );
      assert.equal(answer.status, 413, answer.body);
      assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'payload_too_large');
    });

    test('a body without a length is 413 as soon as it passes 20 MiB', async () => {
      let written = 0;
      const answer = await rawRequest(
        server.url,
        `/v1/farms/${farmId}/animals/import?dry_run=true`,
        { authorization: `Bearer ${key}`, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
        (req) => {
          // Rows up to a little past the cap, then the request is left open (never ended).
          const chunk = Buffer.from(row(0).repeat(1000));
          const pump = () => {
            while (written <= IMPORT_BODY_LIMIT_BYTES + chunk.length && !req.destroyed) {
              written += chunk.length;
              if (!req.write(chunk)) return void req.once('drain', pump);
            }
          };
          req.write(`${COLUMNS}\n`);
          pump();
        },
      );
      assert.equal(answer.status, 413, answer.body);
      assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'payload_too_large');
      assert.equal((await fetch(`${server.url}/livez`)).status, 200);
    });
  });
}
