import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allows,
  describePermission,
  FULL_ACCESS,
  grantsWithin,
  missingPermission,
  permission,
  ROLE_PRESETS,
} from './permissions.ts';

test('write includes read and delete; read is read only; an absent family grants nothing', () => {
  const policy = { families: { records: 'write', devices: 'read' } as const };
  assert.ok(allows(policy, permission('animals', 'delete')));
  assert.ok(allows(policy, permission('readings', 'read')));
  assert.ok(!allows(policy, permission('commands', 'write')));
  assert.ok(!allows(policy, permission('alerts', 'read')));
  assert.equal(describePermission(permission('commands', 'write')), 'devices:write');
  assert.equal(describePermission(permission('animals', 'delete')), 'records:write');
});

test('the owner role is every permission; crew reads and does field work but no settings, keys, webhooks or deletes', () => {
  for (const p of [
    permission('keys', 'write'),
    permission('farms', 'delete'),
    permission('webhooks', 'write'),
  ]) {
    assert.ok(allows(ROLE_PRESETS.owner, p));
  }
  const crew = ROLE_PRESETS.crew;
  for (const p of [
    permission('animals', 'read'),
    permission('alerts', 'write'),
    permission('tasks', 'write'),
    permission('events', 'write'),
    permission('commands', 'write'),
    permission('houses', 'read'),
  ]) {
    assert.ok(allows(crew, p), `crew should have ${p.resource}:${p.access}`);
  }
  for (const p of [
    permission('farms', 'write'),
    permission('tasks', 'delete'),
    permission('devices', 'write'),
    permission('keys', 'read'),
    permission('webhooks', 'read'),
    permission('animals', 'delete'),
    permission('alerts', 'delete'),
    permission('rules', 'write'),
    permission('people', 'read'),
    permission('usage', 'read'),
  ]) {
    assert.ok(!allows(crew, p), `crew should not have ${p.resource}:${p.access}`);
  }
  assert.deepEqual(
    missingPermission(crew, [permission('tasks', 'write'), permission('farms', 'write')]),
    permission('farms', 'write'),
  );
});

test('grantsWithin: a key makes only keys no broader than itself', () => {
  assert.ok(grantsWithin({ records: 'read' }, FULL_ACCESS));
  assert.ok(grantsWithin({ records: 'read' }, { records: 'write' }));
  assert.ok(!grantsWithin({ records: 'write' }, { records: 'read' }));
  assert.ok(!grantsWithin({ alerts: 'read' }, { records: 'write' }));
  assert.ok(grantsWithin({}, {}));
});
