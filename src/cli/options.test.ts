import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from 'commander';
import { RECORD_KINDS } from '../domain/record-kinds.ts';
import { buildProgram } from './program.ts';

test('every id the CLI help names, as "(acct_…)", has a prefix ids really have', () => {
  const prefixes = new Set<string>(Object.values(RECORD_KINDS).map((kind) => kind.prefix));
  const walk = (command: Command): Command[] => [command, ...command.commands.flatMap(walk)];
  const named: string[] = [];
  for (const command of walk(buildProgram())) {
    const texts = [command.description(), ...command.options.map((o) => o.description)];
    for (const text of texts) {
      for (const match of text.matchAll(/\(([a-z]+)_…\)/g)) {
        named.push(match[1] ?? '');
        assert.ok(prefixes.has(match[1] ?? ''), `${command.name()}: "${text}" names an id prefix no id has`);
      }
    }
  }
  assert.ok(named.includes('acct'), 'the --account options say acct_…');
  assert.ok(named.length >= 5, `found ${named.length}`);
});
