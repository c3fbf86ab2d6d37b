/**
 * docs/people.md shows the roles as a table generated from ROLE_PRESETS (src/domain/permissions.ts), the one
 * place they are written: this test regenerates it and fails, printing the table to paste, when they differ.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  type Access,
  allows,
  FAMILY_NAMES,
  PERMISSION_FAMILIES,
  permission,
  type Resource,
  ROLE_NAMES,
  ROLE_PRESETS,
} from '../../domain/permissions.ts';

const ACCESSES: Access[] = ['read', 'write', 'delete'];

function accessesOf(role: (typeof ROLE_NAMES)[number], resource: Resource): string {
  const granted = ACCESSES.filter((a) => allows(ROLE_PRESETS[role], permission(resource, a)));
  return granted.length > 0 ? granted.join(', ') : 'none';
}

/** One row per family and distinct set of role accesses, resources in registry order. */
function rolesTable(): string {
  const rows = [
    `| resources | family | ${ROLE_NAMES.join(' | ')} |`,
    `|---|---|${ROLE_NAMES.map(() => '---|').join('')}`,
  ];
  for (const family of FAMILY_NAMES) {
    const groups = new Map<string, Resource[]>();
    for (const resource of PERMISSION_FAMILIES[family] as readonly Resource[]) {
      const cells = ROLE_NAMES.map((role) => accessesOf(role, resource)).join(' | ');
      groups.set(cells, [...(groups.get(cells) ?? []), resource]);
    }
    for (const [cells, resources] of groups)
      rows.push(`| ${resources.join(', ')} | \`${family}\` | ${cells} |`);
  }
  return rows.join('\n');
}

test('docs/people.md shows the roles exactly as ROLE_PRESETS grants them', () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/people.md'), 'utf8');
  const table = rolesTable();
  assert.ok(doc.includes(table), `docs/people.md should contain this roles table:\n\n${table}\n`);
});
