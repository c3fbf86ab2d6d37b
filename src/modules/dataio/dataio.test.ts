import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import * as make from '../../../test/factories.ts';
import { type ErrorBody, expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import { insertReadings } from '../../db/statements/readings.ts';
import { newId } from '../../domain/ids.ts';
import type { Animal } from '../animals/schemas.ts';
import type { FarmEvent } from '../events/schemas.ts';
import type { Task } from '../tasks/schemas.ts';
import { EXPORT_COLUMNS, READINGS_EXPORT_PAGE } from './export.ts';
import { IMPORT_BATCH_ROWS } from './import.ts';
import { IMPORT_MAX_ROWS, type ImportResult } from './schemas.ts';

const csvHeaders = { 'content-type': 'text/csv' };

async function csvImport(
  t: TestApp,
  key: string,
  farmId: string,
  text: string,
  query = '',
  headers: Record<string, string> = {},
) {
  return t.request<ImportResult>('POST', `/v1/farms/${farmId}/animals/import${query}`, {
    key,
    rawBody: text,
    headers: { ...csvHeaders, ...headers },
  });
}

/** An export's text as sent (the harness would parse NDJSON as one JSON value). */
async function exportText(t: TestApp, key: string, path: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

function csvRows(text: string): Record<string, string>[] {
  return parse(text, { columns: true }) as Record<string, string>[];
}

async function animalsOf(t: TestApp, key: string, farmId: string): Promise<Animal[]> {
  const text = await exportText(t, key, `/v1/farms/${farmId}/animals/export?format=ndjson`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Animal);
}

const comparable = ({ id: _i, farm_id: _f, created_at: _c, ...rest }: Animal) => rest;

forEachEngine('data in and out', (t) => {
  test('animals export as CSV (documented columns, attachment) and NDJSON (the API objects)', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const a = await make.animal(t(), acct.live_key, farm.id, {
      name: 'Bess, "the boss"',
      tag: 'Y17',
      fields: { colour: 'red', horns: false },
      notes: 'line one\nline two',
    });
    const res = await t().request<string>('GET', `/v1/farms/${farm.id}/animals/export?format=csv`, {
      key: acct.live_key,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="farm_\w+-animals-\d{4}-\d\d-\d\d\.csv"$/,
    );
    const [headerLine] = res.body.split('\n');
    assert.equal(headerLine, EXPORT_COLUMNS.animals.join(','));
    const [row] = csvRows(res.body);
    assert.equal(row?.id, a.id);
    assert.equal(row?.name, 'Bess, "the boss"');
    assert.equal(row?.notes, 'line one\nline two');
    assert.deepEqual(JSON.parse(row?.fields ?? ''), { colour: 'red', horns: false });
    assert.equal(row?.eid, '', 'null is an empty cell');

    const nd = await t().app.inject({
      url: `/v1/farms/${farm.id}/animals/export?format=ndjson`,
      headers: { authorization: `Bearer ${acct.live_key}` },
    });
    assert.equal(nd.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    const got = await t().request<Animal>('GET', `/v1/animals/${a.id}`, { key: acct.live_key });
    assert.deepEqual(JSON.parse(nd.body.trim()), got.body);
  });

  test('export → import into an empty farm → the same animals (round trip)', async () => {
    const acct = await t().sharedAccount();
    const from = await make.farm(t(), acct.live_key, { name: 'From' });
    const to = await make.farm(t(), acct.live_key, { name: 'To' });
    await make.animal(t(), acct.live_key, from.id, {
      species: 'sheep',
      name: 'Dolly; the first',
      tag: 'S1',
      eid: `982 000${Date.now()}1`,
      sex: 'female',
      breed: 'Finn Dorset',
      birth_date: '2024-03-17',
      status: 'active',
      notes: 'quoted "notes", commas',
      fields: { colour: 'white', lambs: 2, vaccinated: ['cdt'] },
    });
    await make.animal(t(), acct.live_key, from.id, { species: 'goat', tag: 'G1', status: 'sold' });
    await make.animal(t(), acct.live_key, from.id, { species: 'pig' });
    const text = await exportText(t(), acct.live_key, `/v1/farms/${from.id}/animals/export?format=csv`);
    // The EID is unique per account: move the animals, as a farmer moving to a new farm would.
    const original = await animalsOf(t(), acct.live_key, from.id);
    for (const a of original) await t().request('DELETE', `/v1/animals/${a.id}`, { key: acct.live_key });
    const imported = await csvImport(t(), acct.live_key, to.id, text);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal(imported.body.created, 3);
    assert.equal(imported.body.updated, 0);
    assert.deepEqual(imported.body.errors, []);
    const copies = await animalsOf(t(), acct.live_key, to.id);
    const key = (a: Animal) => JSON.stringify(comparable(a));
    assert.deepEqual(copies.map(key).sort(), original.map(key).sort());
    assert.ok(copies.every((c) => c.farm_id === to.id));
  });

  test('a text cell a spreadsheet would run as a formula is exported behind an apostrophe; numbers are not; the import reads it back', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const from = await make.farm(t(), key, { name: 'Formulas from' });
    const to = await make.farm(t(), key, { name: 'Formulas to' });
    // Each character a spreadsheet starts a formula with (OWASP: = + - @ tab CR), and text that already
    // starts with an apostrophe: all must come back as they were.
    const notes: Record<string, string> = {
      F1: '=HYPERLINK("http://evil.example","x")',
      F2: '+44 1234',
      F3: '-5',
      F4: "@SUM(1+1)*cmd|' /C calc'!A0",
      F5: '\t=1+1',
      F6: '\r=1+1',
      F7: "'=already guarded",
      F8: "''-twice",
      F9: "'just a quote",
      F10: 'plain = text',
    };
    for (const [tag, note] of Object.entries(notes)) {
      await make.animal(t(), key, from.id, { species: 'cattle', tag, notes: note, name: `-${tag}` });
    }
    const text = await exportText(t(), key, `/v1/farms/${from.id}/animals/export?format=csv`);
    const rows = csvRows(text);
    const cell = (tag: string, column: string) => rows.find((r) => r.tag === tag)?.[column];
    for (const tag of ['F1', 'F2', 'F3', 'F4', 'F5', 'F6']) {
      assert.equal(cell(tag, 'notes'), `'${notes[tag]}`, tag);
      assert.equal(cell(tag, 'name'), `'-${tag}`, tag);
    }
    assert.equal(cell('F3', 'notes'), "'-5", 'text that looks like a number is still text');
    assert.equal(cell('F7', 'notes'), `'${notes.F7}`, 'apostrophes before a formula character: one more');
    assert.equal(cell('F8', 'notes'), `'${notes.F8}`);
    assert.equal(cell('F9', 'notes'), notes.F9, 'an apostrophe before anything else is left alone');
    assert.equal(cell('F10', 'notes'), notes.F10);
    assert.ok(
      text.split('\n').every((line) => !/(^|,)"?[=+\-@\t\r]/.test(line)),
      'no cell of the file starts with a formula character',
    );

    // Export → import: every value as it was.
    const original = await animalsOf(t(), key, from.id);
    const imported = await csvImport(t(), key, to.id, text);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.equal(imported.body.created, Object.keys(notes).length);
    const copies = await animalsOf(t(), key, to.id);
    const same = (a: Animal) => JSON.stringify(comparable(a));
    assert.deepEqual(copies.map(same).sort(), original.map(same).sort());
    assert.deepEqual(
      Object.fromEntries(copies.map((a) => [a.tag, a.notes])),
      notes,
      'the notes came back unchanged',
    );
    // The farm's own export imported again changes nothing.
    const again = await csvImport(t(), key, to.id, text);
    assert.equal(again.body.unchanged, Object.keys(notes).length, JSON.stringify(again.body));

    // Events and tasks: text columns guarded, JSON cells as they are.
    await make.created(t(), key, `/v1/farms/${from.id}/events`, {
      type: '=HYPERLINK("http://evil.example","x")',
      data: { note: '=1+1', kg: -5 },
    });
    const event = csvRows(await exportText(t(), key, `/v1/farms/${from.id}/events/export`)).find((r) =>
      r.data?.includes('=1+1'),
    );
    assert.equal(event?.type, `'=HYPERLINK("http://evil.example","x")`);
    assert.deepEqual(JSON.parse(event?.data ?? ''), { note: '=1+1', kg: -5 });
    await make.created(t(), key, `/v1/farms/${from.id}/tasks`, {
      title: '@cmd',
      notes: '-rm',
      assignee: '+Ann',
    });
    const task = csvRows(await exportText(t(), key, `/v1/farms/${from.id}/tasks/export`)).find(
      (r) => r.id !== '',
    );
    assert.deepEqual([task?.title, task?.notes, task?.assignee], ["'@cmd", "'-rm", "'+Ann"]);

    // Readings: a negative number is a number, written as JSON writes it.
    const device = await make.device(t(), key, from.id, { type: 'weather', name: 'Probe' });
    const now = Date.now();
    await insertReadings(t().database.db, { deviceId: device.id, farmId: from.id }, [
      { metric: 'temp_c', value: -5, unit: null, at: now, raw_value: null, raw_unit: null },
      { metric: 'temp_c', value: -0.25, unit: null, at: now - 1, raw_value: null, raw_unit: null },
    ]);
    const readings = csvRows(await exportText(t(), key, `/v1/devices/${device.id}/readings/export`));
    assert.deepEqual(
      readings.map((r) => r.value),
      ['-5', '-0.25'],
    );
  });

  test('an import takes off the apostrophe that guards a formula character, and only that one', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const text = [
      'species,tag,notes',
      "cattle,'=A1,'+1",
      "cattle,'-B2,'''@x",
      "cattle,'C3,'plain",
      "cattle,''D4,''",
      "cattle,E5,'\t=1",
      '',
    ].join('\n');
    const res = await csvImport(t(), acct.live_key, farm.id, text);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const animals = await animalsOf(t(), acct.live_key, farm.id);
    assert.deepEqual(Object.fromEntries(animals.map((a) => [a.tag, a.notes])), {
      '=A1': '+1',
      '-B2': "''@x",
      "'C3": "'plain",
      "''D4": "''",
      E5: '\t=1',
    });
  });

  test('a spreadsheet export: BOM, ; separators, quoted fields, CRLF and blank lines', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const text =
      '\uFEFFspecies;name;tag;notes\r\ncattle;"Moo; Cow";C1;"said ""hi"""\r\n\r\n;;;\r\ngoat;Billy;G7;\r\n';
    const res = await csvImport(t(), acct.live_key, farm.id, text);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.created, 2);
    assert.deepEqual(
      res.body.results.map((r) => r.row),
      [2, 5],
      'rows are the file lines',
    );
    const animals = await animalsOf(t(), acct.live_key, farm.id);
    const moo = animals.find((a) => a.tag === 'C1');
    assert.equal(moo?.name, 'Moo; Cow');
    assert.equal(moo?.notes, 'said "hi"');
    assert.equal(animals.find((a) => a.tag === 'G7')?.notes, null);
  });

  test('a row’s EID in a reader’s format matches the animal stored with its 15 digits', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const cow = await make.animal(t(), acct.live_key, farm.id, { eid: '982000001088421', tag: 'B7' });
    const text = [
      'species,eid,name',
      'cattle,LA 982 000001088421,Matched',
      'cattle,982.000001088422,New',
    ].join('\n');
    const res = await csvImport(t(), acct.live_key, farm.id, text);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.results.map((r) => r.action),
      ['update', 'create'],
    );
    assert.equal(res.body.results[0]?.animal_id, cow.id);
    const animals = await animalsOf(t(), acct.live_key, farm.id);
    assert.deepEqual(animals.map((a) => a.eid).sort(), ['982000001088421', '982000001088422']);
  });

  test('rows match existing animals by eid, else tag, and update them instead of duplicating', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const eid = `982${Date.now()}`;
    const byEid = await make.animal(t(), acct.live_key, farm.id, { eid, tag: 'OLD', fields: { a: 1, b: 2 } });
    const byTag = await make.animal(t(), acct.live_key, farm.id, { tag: 'T9', name: 'Before' });
    const paddock = await make.paddock(t(), acct.live_key, farm.id);
    const text = [
      'species,eid,tag,name,paddock_id,fields',
      `cattle,${eid},NEW,Renamed,${paddock.id},"{""b"":3}"`,
      `cattle,,T9,After,,`,
      'cattle,,T10,Fresh,,',
    ].join('\n');
    const res = await csvImport(t(), acct.live_key, farm.id, text);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.results.map((r) => [r.action, r.animal_id !== null]),
      [
        ['update', true],
        ['update', true],
        ['create', true],
      ],
    );
    assert.equal(res.body.results[0]?.animal_id, byEid.id);
    const first = await make.fetched<Animal>(t(), acct.live_key, `/v1/animals/${byEid.id}`);
    assert.equal(first.tag, 'NEW');
    assert.equal(first.name, 'Renamed');
    assert.equal(first.paddock_id, paddock.id);
    assert.deepEqual(first.fields, { b: 3 }, 'the row’s fields replace the stored ones');
    const second = await make.fetched<Animal>(t(), acct.live_key, `/v1/animals/${byTag.id}`);
    assert.equal(second.name, 'After');
    assert.equal((await animalsOf(t(), acct.live_key, farm.id)).length, 3);
    // The paddock change went through updateAnimal: it logged a move, as a PATCH does.
    const moves = await make.farmEvents(t(), farm.id, 'move');
    assert.equal(moves.length, 1);
  });

  test('malformed CSV is a 400 naming the row (and column), and nothing is stored', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const unclosed = await csvImport(
      t(),
      acct.live_key,
      farm.id,
      'species,name\ncattle,ok\ncattle,"never closed\n',
    );
    const e1 = expectError(unclosed, 400, 'invalid_request');
    assert.match(e1.message, /row 3/);
    assert.match(e1.message, /never closed/);

    const column = await csvImport(t(), acct.live_key, farm.id, 'species,colour\ncattle,red\n');
    const e2 = expectError(column, 400, 'invalid_request');
    assert.match(e2.message, /column 2 "colour" is not an animal column/);

    const bad = await csvImport(
      t(),
      acct.live_key,
      farm.id,
      'species,tag,birth_date\ncattle,A1,2024-01-01\ncattle,A2,yesterday-ish\ncattle,A3,2024-02-30x\n',
    );
    const e3 = expectError(bad, 400, 'invalid_request');
    assert.match(e3.message, /^Nothing was imported: row 3, column birth_date: /);
    assert.equal(e3.param, 'birth_date');
    assert.match(e3.message, /1 more error/);

    const short = await csvImport(t(), acct.live_key, farm.id, 'species,tag,name\ncattle,B1\n');
    assert.match(expectError(short, 400, 'invalid_request').message, /row 2: .*2 cells; the header has 3/i);

    assert.deepEqual(await animalsOf(t(), acct.live_key, farm.id), [], 'nothing stored');
    assert.deepEqual(await make.outboxEvents(t(), farm.id, 'animal.created'), [], 'no webhook events either');
  });

  test('dry_run=true reports every row and its errors, and changes nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const existing = await make.animal(t(), acct.live_key, farm.id, { tag: 'K1', name: 'Kept' });
    const text =
      'species,tag,name,group_id,fields\ncattle,K1,Changed,,\ncattle,K2,New,,\n,K3,No species,,\ncattle,K4,,grp_nope,\ncattle,K5,,,[1]\n';
    const res = await csvImport(t(), acct.live_key, farm.id, text, '?dry_run=true');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.dry_run, true);
    assert.equal(res.body.rows, 5);
    assert.equal(res.body.created, 1);
    assert.equal(res.body.updated, 1);
    assert.deepEqual(
      res.body.results.map((r) => r.action),
      ['update', 'create', 'error', 'error', 'error'],
    );
    assert.equal(res.body.results[0]?.animal_id, existing.id);
    assert.equal(res.body.results[1]?.animal_id, null, 'no id for an animal not made');
    assert.deepEqual(
      res.body.errors.map((e) => [e.row, e.column]),
      [
        [4, 'species'],
        [5, 'group_id'],
        [6, 'fields'],
      ],
    );
    const after = await animalsOf(t(), acct.live_key, farm.id);
    assert.equal(after.length, 1);
    assert.equal(after[0]?.name, 'Kept');
    assert.deepEqual(await make.outboxEvents(t(), farm.id, 'animal.created'), [
      ...(await make.outboxEvents(t(), farm.id, 'animal.created')),
    ]);
    assert.equal((await make.outboxEvents(t(), farm.id, 'animal.created')).length, 1, 'only the factory’s');
  });

  test('skip_invalid=true imports the valid rows and lists the skipped ones', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const text = 'species,tag,birth_date\ncattle,V1,2024-01-01\ncattle,V2,not a date\ncattle,V3,\n';
    const res = await csvImport(t(), acct.live_key, farm.id, text, '?skip_invalid=true');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.created, 2);
    assert.equal(res.body.skipped, 1);
    assert.deepEqual(
      res.body.errors.map((e) => [e.row, e.column]),
      [[3, 'birth_date']],
    );
    const tags = (await animalsOf(t(), acct.live_key, farm.id)).map((a) => a.tag).sort();
    assert.deepEqual(tags, ['V1', 'V3']);
  });

  test('a status of sold inside a meat withdrawal is a row error: the dry run shows it, skip_invalid leaves it out', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = await make.farm(t(), key);
    const held = await make.animal(t(), key, farm.id, { tag: 'W1', name: 'Held' });
    const clear = await make.animal(t(), key, farm.id, { tag: 'W2', name: 'Clear' });
    const med = await make.created<{ id: string }>(t(), key, `/v1/farms/${farm.id}/medicines`, {
      name: 'Pen & Strep',
      unit: 'ml',
      withdrawal: { meat_days: 28 },
    });
    await make.created(t(), key, `/v1/farms/${farm.id}/treatments`, {
      medicine_id: med.id,
      animal_ids: [held.id],
      dose: 5,
      dose_unit: 'ml',
      route: 'oral',
    });
    const text = 'tag,status\nW1,sold\nW2,sold\n';
    const dry = await csvImport(t(), key, farm.id, text, '?dry_run=true');
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(
      dry.body.results.map((r) => r.action),
      ['error', 'update'],
    );
    assert.equal(dry.body.errors[0]?.column, 'status');
    assert.match(dry.body.errors[0]?.message ?? '', /meat withdrawal.*An import cannot record a leaving/);
    const refused = await csvImport(t(), key, farm.id, text, '');
    expectError(refused, 400, 'invalid_request');
    const skipped = await csvImport(t(), key, farm.id, text, '?skip_invalid=true');
    assert.equal(skipped.status, 200, JSON.stringify(skipped.body));
    const after = await animalsOf(t(), key, farm.id);
    assert.deepEqual(
      [after.find((a) => a.id === held.id)?.status, after.find((a) => a.id === clear.id)?.status],
      ['active', 'sold'],
    );
  });

  test('two rows for one animal, an eid held elsewhere, and an ambiguous tag are row errors', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const other = await make.farm(t(), acct.live_key);
    const eid = `985${Date.now()}`;
    await make.animal(t(), acct.live_key, other.id, { eid });
    await make.animal(t(), acct.live_key, farm.id, { tag: 'TWIN' });
    await make.animal(t(), acct.live_key, farm.id, { tag: 'TWIN' });
    const text = `species,tag,eid\ncattle,D1,\ncattle,D1,\ncattle,,${eid}\ncattle,TWIN,\n`;
    const res = await csvImport(t(), acct.live_key, farm.id, text, '?dry_run=true');
    assert.deepEqual(
      res.body.errors.map((e) => [e.row, e.column]),
      [
        [3, 'tag'],
        [4, 'eid'],
        [5, 'tag'],
      ],
    );
    assert.match(res.body.errors[0]?.message ?? '', /same animal as row 2/);
  });

  test('a 5,000-row import works', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const lines = ['species,tag,eid,name,birth_date,fields'];
    const stamp = Date.now();
    for (let i = 0; i < 5000; i++) {
      lines.push(`sheep,L${i},9${stamp}${String(i).padStart(5, '0')},Lamb ${i},2025-04-01,"{""n"":${i}}"`);
    }
    const res = await csvImport(t(), acct.live_key, farm.id, lines.join('\n'));
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.created, 5000);
    const animals = await animalsOf(t(), acct.live_key, farm.id);
    assert.equal(animals.length, 5000);
    assert.deepEqual(animals.find((a) => a.tag === 'L4321')?.fields, { n: 4321 });
    // Importing the same file again matches every one of them instead of duplicating.
    const again = await csvImport(t(), acct.live_key, farm.id, lines.join('\n'));
    assert.equal(again.body.unchanged, 5000);
    assert.equal(again.body.created, 0);
    assert.equal((await animalsOf(t(), acct.live_key, farm.id)).length, 5000);
  });

  test('Idempotency-Key replays an import instead of running it twice', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const headers = { 'idempotency-key': `imp-${Date.now()}` };
    const first = await csvImport(t(), acct.live_key, farm.id, 'species,name\ncattle,Once\n', '', headers);
    const second = await csvImport(t(), acct.live_key, farm.id, 'species,name\ncattle,Once\n', '', headers);
    assert.equal(first.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal((await animalsOf(t(), acct.live_key, farm.id)).length, 1);
    // The body is kept as bytes: another file under the same key is another request.
    const other = await csvImport(t(), acct.live_key, farm.id, 'species,name\ncattle,Twice\n', '', headers);
    expectError(other, 409, 'conflict');
  });

  test('every cell obeys the input rules: NUL, lone surrogates, non-finite numbers, depth, named by row and column', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const cell = (json: string) => `"${json.replaceAll('"', '""')}"`;
    const text = [
      'species,tag,notes,fields',
      'cattle,R2,fine,',
      'cattle,R3,bad\u0000note,',
      `cattle,R4,,${cell('{"a":"nul \\u0000 here"}')}`,
      `cattle,R5,,${cell('{"a":{"b":"\\ud800"}}')}`,
      `cattle,R6,,${cell('{"weight":1e309}')}`,
      `cattle,R7,,${cell(deep)}`,
      `cattle,R8,,${cell('{"\\u0000":1}')}`,
    ].join('\n');
    const dry = await csvImport(t(), acct.live_key, farm.id, text, '?dry_run=true');
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(
      dry.body.errors.map((e) => [e.row, e.column]),
      [
        [3, 'notes'],
        [4, 'fields'],
        [5, 'fields'],
        [6, 'fields'],
        [7, 'fields'],
        [8, 'fields'],
      ],
    );
    const [nul, escaped, surrogate, infinite, tooDeep, key] = dry.body.errors.map((e) => e.message);
    assert.match(nul ?? '', /^notes must not contain NUL characters/);
    assert.match(escaped ?? '', /^fields\.a must not contain NUL characters/);
    assert.match(surrogate ?? '', /^fields\.a\.b contains an unpaired UTF-16 surrogate/);
    assert.match(infinite ?? '', /^fields\.weight must be a finite number/);
    assert.match(tooDeep ?? '', /^fields nests deeper than 32 levels/);
    assert.match(key ?? '', /has a member name that must not contain NUL characters/);
    assert.equal(dry.body.error_count, 6);
    assert.deepEqual(
      dry.body.results.map((r) => r.action),
      ['create', 'error', 'error', 'error', 'error', 'error', 'error'],
    );

    const refused = await csvImport(t(), acct.live_key, farm.id, text);
    const error = expectError(refused, 400, 'invalid_request');
    assert.match(error.message, /^Nothing was imported: row 3, column notes: notes must not contain NUL/);
    assert.equal(error.param, 'notes');
    assert.deepEqual(await animalsOf(t(), acct.live_key, farm.id), [], 'nothing stored, no null for 1e309');

    const header = await csvImport(t(), acct.live_key, farm.id, 'species,ta\u0000g\ncattle,T\n');
    assert.match(
      expectError(header, 400, 'invalid_request').message,
      /^Row 1, column 2: the column name must not contain NUL/,
    );
  });

  test('more than 100,000 rows is 413, and nothing is stored', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    // A first batch of good rows is written (in the import's transaction) before the count passes the cap;
    // the rows after it break the text rules (a NUL), so they are only read and counted, not checked against
    // the farm or written: the cap is reached as with 100,001 good rows, without writing 100,000 animals
    // first (src/modules/dataio/import-heap.test.ts imports 100,000 good rows at the limit).
    const good = IMPORT_BATCH_ROWS + 1;
    const res = await csvImport(
      t(),
      acct.live_key,
      farm.id,
      `species,name\n${'goat,Nanny\n'.repeat(good)}${'goat,\u0000\n'.repeat(IMPORT_MAX_ROWS + 1 - good)}`,
    );
    const error = expectError(res, 413, 'payload_too_large');
    assert.match(error.message, /at most 100,000 rows; this file has more \(row 100002 is the 100,001th\)/);
    assert.deepEqual(await animalsOf(t(), acct.live_key, farm.id), [], 'the first batch is rolled back');
    assert.deepEqual(await make.outboxEvents(t(), farm.id, 'animal.created'), [], 'no webhook events either');
  });

  test('rows match the farm as it was before the import, across batches', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const stamp = Date.now();
    const [eidR, eidK, eidNew, eidOther] = [1, 2, 3, 4].map((n) => `986${stamp}${n}`);
    const retag = await make.animal(t(), acct.live_key, farm.id, { tag: 'OLD-TAG', eid: eidR });
    const reEid = await make.animal(t(), acct.live_key, farm.id, { tag: 'KEEP' });
    const lines = ['species,tag,eid,name'];
    lines.push(`cattle,NEW-TAG,${eidR},Retagged`); // row 2: matched by EID, its tag changed
    lines.push(`cattle,KEEP,${eidK},Given an EID`); // row 3: matched by tag, given an EID
    lines.push(`cattle,FRESH,${eidNew},New`); // row 4: a new animal with a new EID
    // Filler rows push what follows into later batches, after the rows above are written.
    for (let i = 0; i < IMPORT_BATCH_ROWS + 10; i++) lines.push(`sheep,F${i},,`);
    const late = lines.length + 1;
    lines.push('cattle,OLD-TAG,,Again'); // row 2's animal, by the tag it had before the import
    lines.push(`cattle,OTHER,${eidK},Copy`); // row 3 gave this EID
    lines.push(`cattle,DUP,${eidNew},Copy`); // row 4 gave this EID
    lines.push(`cattle,FRESH,${eidOther},Other`); // FRESH did not exist before: a new animal
    const expected = [
      [late, 'This row names the same animal as row 2.'],
      [late + 1, `Row 3 of this file already gives eid "${eidK}".`],
      [late + 2, `Row 4 of this file already gives eid "${eidNew}".`],
    ];
    // A dry run (nothing written between batches) and the import (each batch written before the next is
    // read) find the same errors.
    const dry = await csvImport(t(), acct.live_key, farm.id, lines.join('\n'), '?dry_run=true');
    assert.equal(dry.status, 200, JSON.stringify(dry.body).slice(0, 500));
    assert.deepEqual(
      dry.body.errors.map((e) => [e.row, e.message]),
      expected,
    );
    const res = await csvImport(t(), acct.live_key, farm.id, lines.join('\n'), '?skip_invalid=true');
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    assert.deepEqual(
      res.body.errors.map((e) => [e.row, e.message]),
      expected,
    );
    assert.deepEqual(
      res.body.results.slice(0, 3).map((r) => [r.action, r.animal_id === null]),
      [
        ['update', false],
        ['update', false],
        ['create', false],
      ],
    );
    assert.equal(res.body.results[0]?.animal_id, retag.id);
    assert.equal(res.body.results[1]?.animal_id, reEid.id);
    assert.equal(res.body.results.at(-1)?.action, 'create');
    assert.equal(res.body.created, 2 + IMPORT_BATCH_ROWS + 10);
    const stored = await make.fetched<Animal>(t(), acct.live_key, `/v1/animals/${retag.id}`);
    assert.equal(stored.tag, 'NEW-TAG');
    assert.equal((await make.fetched<Animal>(t(), acct.live_key, `/v1/animals/${reEid.id}`)).eid, eidK);
  });

  test('an import body must be CSV, and a restricted key needs animals write', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const json = await t().request('POST', `/v1/farms/${farm.id}/animals/import`, {
      key: acct.live_key,
      body: { species: 'cattle' },
    });
    expectError(json, 415, 'unsupported_media_type');
    expectError(await csvImport(t(), acct.live_key, farm.id, ''), 400, 'invalid_request');
    const ro = await make.created<{ key: string }>(t(), acct.live_key, '/v1/keys', {
      name: 'read only',
      permissions: { records: 'read' },
    });
    expectError(await csvImport(t(), ro.key, farm.id, 'species\ncattle\n'), 403, 'forbidden');
    const read = await t().request('GET', `/v1/farms/${farm.id}/animals/export`, { key: ro.key });
    assert.equal(read.status, 200, 'an export is a read');
    expectError(
      await t().request('GET', '/v1/farms/farm_nope/animals/export', { key: acct.live_key }),
      404,
      'not_found',
    );
  });

  test('events and tasks export every record, beyond one internal page, newest first', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const base = Date.parse('2026-01-01T00:00:00Z');
    const n = 1203;
    const events = Array.from({ length: n }, (_, i) => ({
      id: newId('event', base + i),
      farm_id: farm.id,
      type: 'weight',
      subject_type: null,
      subject_id: null,
      data: JSON.stringify({ kg: i, note: i % 2 ? 'a,b' : 'x"y' }),
      // Every third event shares a millisecond with the next, so pages split ties.
      at: base + Math.floor(i / 3) * 1000,
      created_at: base + i,
    }));
    const tasks = Array.from({ length: n }, (_, i) => ({
      id: newId('task', base + i),
      farm_id: farm.id,
      title: `Task ${i}`,
      notes: null,
      due_at: null,
      assignee: null,
      status: 'open',
      subject_type: null,
      subject_id: null,
      alert_id: null,
      done_at: null,
      created_at: base + Math.floor(i / 2),
    }));
    for (let i = 0; i < n; i += 300) {
      await t()
        .database.db.insertInto('farm_events')
        .values(events.slice(i, i + 300))
        .execute();
      await t()
        .database.db.insertInto('tasks')
        .values(tasks.slice(i, i + 300))
        .execute();
    }
    const evText = await exportText(t(), acct.live_key, `/v1/farms/${farm.id}/events/export`);
    const evRows = csvRows(evText);
    assert.equal(evRows.length, n);
    assert.equal(new Set(evRows.map((r) => r.id)).size, n, 'no repeats, none missing');
    assert.deepEqual(JSON.parse(evRows[0]?.data ?? ''), { kg: n - 1, note: 'x"y' });
    const ats = evRows.map((r) => Date.parse(r.at ?? ''));
    assert.ok(
      ats.every((at, i) => i === 0 || at <= (ats[i - 1] as number)),
      'newest first',
    );

    const ndTasks = (await exportText(t(), acct.live_key, `/v1/farms/${farm.id}/tasks/export?format=ndjson`))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Task);
    assert.equal(ndTasks.length, n);
    assert.equal(new Set(ndTasks.map((x) => x.id)).size, n);
    assert.deepEqual(Object.keys(ndTasks[0] ?? {}), EXPORT_COLUMNS.tasks);
    const zipped = await t().app.inject({
      url: `/v1/farms/${farm.id}/events/export`,
      headers: { authorization: `Bearer ${acct.live_key}`, 'accept-encoding': 'gzip' },
    });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(zipped.rawPayload).toString('utf8'), evText, 'compressed on the fly, same text');
    const one = await make.fetched<FarmEvent>(t(), acct.live_key, `/v1/events/${events[5]?.id}`);
    assert.equal(evRows.find((r) => r.id === one.id)?.at, one.at);
  });

  test('readings export: every reading across pages (ties at a page edge), metric and time filters', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const device = await make.device(t(), acct.live_key, farm.id, { type: 'weather', name: 'Probe' });
    const base = Date.parse('2026-03-01T00:00:00Z');
    const total = READINGS_EXPORT_PAGE + 1_500;
    const metrics: string[] = [];
    const values: number[] = [];
    const units: (string | null)[] = [];
    const ats: number[] = [];
    for (let i = 0; i < total; i++) {
      metrics.push(i % 2 ? 'temp_c' : 'humidity_pct');
      values.push(i);
      units.push(null);
      // Ten readings a millisecond: page edges fall inside a millisecond.
      ats.push(base + Math.floor(i / 10) * 7);
    }
    for (let i = 0; i < total; i += 1000) {
      await insertReadings(
        t().database.db,
        { deviceId: device.id, farmId: farm.id },
        metrics.slice(i, i + 1000).map((metric, k) => ({
          metric,
          value: values[i + k] as number,
          unit: units[i + k] ?? null,
          at: ats[i + k] as number,
          raw_value: null,
          raw_unit: null,
        })),
      );
    }
    const all = csvRows(await exportText(t(), acct.live_key, `/v1/devices/${device.id}/readings/export`));
    assert.equal(all.length, total);
    assert.deepEqual(
      all.map((r) => Number(r.value)).sort((a, b) => a - b),
      values,
      'each reading exactly once',
    );
    assert.deepEqual(Object.keys(all[0] ?? {}), [
      'device_id',
      'metric',
      'value',
      'unit',
      'at',
      'raw_value',
      'raw_unit',
    ]);
    assert.equal(all[0]?.device_id, device.id);

    const since = new Date(base + 100 * 7).toISOString();
    const until = new Date(base + 200 * 7).toISOString();
    const nd = (
      await exportText(
        t(),
        acct.live_key,
        `/v1/devices/${device.id}/readings/export?format=ndjson&metric=temp_c&since=${since}&until=${until}`,
      )
    )
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { metric: string; at: string });
    assert.equal(nd.length, 500, '100 ms-steps × 10 readings, half of them temp_c');
    assert.ok(nd.every((r) => r.metric === 'temp_c' && r.at >= since && r.at < until));

    const bad = await t().request(
      'GET',
      `/v1/devices/${device.id}/readings/export?since=${until}&until=${since}`,
      { key: acct.live_key },
    );
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'until');
    const missing = await t().request('GET', '/v1/devices/dev_nope/readings/export', { key: acct.live_key });
    expectError(missing, 404, 'not_found');
  });
});

export type { ErrorBody };
