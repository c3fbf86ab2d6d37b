import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { csvLines, detectSeparator, parseCsv } from './csv.ts';

test('csv-parse reads back exactly what csvLines writes, whatever the text', () => {
  const cell = fc.oneof(fc.string(), fc.constantFrom('', ',', '"', '""', '\n', '\r\n', ' a ', 'x,"y"\nz'));
  fc.assert(
    fc.property(
      fc.array(fc.array(cell, { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
      (rows) => {
        const width = rows[0]?.length ?? 2;
        const even = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
        assert.deepEqual(parse(csvLines(even), { relax_column_count: true }), even);
      },
    ),
  );
});

test('the separator is the one the header uses most outside quotes', () => {
  assert.equal(detectSeparator('species;name;tag\n'), ';');
  assert.equal(detectSeparator('species,name\n'), ',');
  assert.equal(detectSeparator('species\tname\n'), '\t');
  assert.equal(detectSeparator('"a;b;c",name\n'), ',');
  assert.equal(detectSeparator('species\n'), ',');
});

test('parseCsv gives each record the file line it ends on, skipping blank and empty rows', () => {
  const parsed = parseCsv('\uFEFFa;b\r\n1;2\r\n\r\n;\r\n"x\ny";3\r\n');
  assert.deepEqual(parsed.header, ['a', 'b']);
  assert.deepEqual(parsed.records, [
    { line: 2, cells: ['1', '2'] },
    { line: 6, cells: ['x\ny', '3'] },
  ]);
});
