import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inbreedingCoefficients, offspringInbreeding, type PedigreeNode } from './inbreeding.ts';

const founder = (id: string): PedigreeNode => ({ id, sire: null, dam: null });
const PEDIGREE: PedigreeNode[] = [
  founder('S'),
  founder('D'),
  founder('X'),
  founder('Y'),
  { id: 'A', sire: 'S', dam: 'D' },
  { id: 'B', sire: 'S', dam: 'D' },
  { id: 'H', sire: 'S', dam: 'X' },
  { id: 'C1', sire: 'A', dam: 'X' },
  { id: 'C2', sire: 'Y', dam: 'B' },
];

test('the known offspring coefficients come out exactly', () => {
  assert.equal(offspringInbreeding(PEDIGREE, 'S', 'A'), 0.25, 'parent × offspring');
  assert.equal(offspringInbreeding(PEDIGREE, 'A', 'B'), 0.25, 'full siblings');
  assert.equal(offspringInbreeding(PEDIGREE, 'A', 'H'), 0.125, 'half siblings');
  assert.equal(offspringInbreeding(PEDIGREE, 'C1', 'C2'), 0.0625, 'first cousins');
  assert.equal(offspringInbreeding(PEDIGREE, 'Y', 'A'), 0, 'unrelated');
});

test('inbreeding accumulates over generations, in any input order; a parent not listed is a founder', () => {
  // Three generations of full-sibling matings: 0.25, 0.375, 0.5 (Falconer's table).
  const nodes: PedigreeNode[] = [
    { id: 'g3a', sire: 'g2a', dam: 'g2b' },
    { id: 'g2a', sire: 'g1a', dam: 'g1b' },
    { id: 'g2b', sire: 'g1a', dam: 'g1b' },
    { id: 'g1a', sire: 'P', dam: 'Q' },
    { id: 'g1b', sire: 'P', dam: 'Q' },
    { id: 'g4', sire: 'g3a', dam: 'g3b' },
    { id: 'g3b', sire: 'g2a', dam: 'g2b' },
  ];
  const F = inbreedingCoefficients(nodes);
  assert.deepEqual(
    ['g1a', 'g2a', 'g3a', 'g4'].map((id) => F.get(id)),
    [0, 0.25, 0.375, 0.5],
  );
  assert.equal(F.get('P'), 0);
});

test('a loop in damaged data is cut rather than followed', () => {
  const F = inbreedingCoefficients([
    { id: 'A', sire: 'B', dam: null },
    { id: 'B', sire: 'A', dam: null },
  ]);
  assert.equal(F.size, 2);
});
