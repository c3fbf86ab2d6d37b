/**
 * deploy/farmstead.service is checked by systemd itself (`systemd-analyze verify`: directives, values, the
 * command's binary) when the tool is present; the hardening the docs promise is asserted line by line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const UNIT = readFileSync(path.join(ROOT, 'deploy/farmstead.service'), 'utf8');
const run = promisify(execFile);

async function hasSystemdAnalyze(): Promise<boolean> {
  try {
    await run('systemd-analyze', ['--version']);
    return true;
  } catch {
    return false;
  }
}

test('the unit asks for a dedicated user, a read-only system, its data folder writable and restarts', () => {
  for (const line of [
    'User=farmstead',
    'ProtectSystem=strict',
    'ReadWritePaths=/var/lib/farmstead',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'Restart=on-failure',
    'EnvironmentFile=/etc/farmstead/farmstead.env',
    'KillSignal=SIGTERM',
  ]) {
    assert.ok(UNIT.split('\n').includes(line), `missing ${line}`);
  }
  assert.match(UNIT, /^ExecStart=\S+\/node_modules\/\.bin\/node .* src\/main\.ts serve$/m);
});

test('systemd-analyze verify accepts the unit', async (t) => {
  if (!(await hasSystemdAnalyze())) {
    t.skip('systemd-analyze is not installed here; the unit was not verified by systemd');
    return;
  }
  // verify checks that ExecStart's binary exists: point the install path at this checkout.
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-unit-'));
  try {
    const file = path.join(dir, 'farmstead.service');
    writeFileSync(file, UNIT.replaceAll('/opt/farmstead', ROOT));
    const result = await run('systemd-analyze', ['verify', file]).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    const problems = result.stderr
      .split('\n')
      .filter((line) => line.includes('farmstead.service'))
      .join('\n');
    assert.equal(problems, '', problems);
    assert.equal(result.code, 0, result.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const NODE_UNIT = readFileSync(path.join(ROOT, 'deploy/farmstead@.service'), 'utf8');

test('the three-node reference unit has the same hardening, and each node its own settings and data', () => {
  const hardening = UNIT.split('\n').filter((line) =>
    /^(NoNewPrivileges|Protect\w+|Private\w+|Restrict\w+|LockPersonality|CapabilityBoundingSet|AmbientCapabilities|SystemCallArchitectures|UMask)=/.test(
      line,
    ),
  );
  assert.ok(hardening.length > 10);
  for (const line of [...hardening, 'User=farmstead', 'EnvironmentFile=/etc/farmstead/farmstead.env']) {
    assert.ok(NODE_UNIT.split('\n').includes(line), `missing ${line}`);
  }
  assert.ok(NODE_UNIT.split('\n').includes('EnvironmentFile=/etc/farmstead/node-%i.env'));
  assert.match(NODE_UNIT, /^Environment=FARMSTEAD_DATA=\/var\/lib\/farmstead\/node-%i /m);
  assert.match(NODE_UNIT, /^ExecStart=\S+\/node_modules\/\.bin\/node .* src\/main\.ts serve$/m);
});

test('systemd-analyze verify accepts an instance of the three-node unit', async (t) => {
  if (!(await hasSystemdAnalyze())) {
    t.skip('systemd-analyze is not installed here; the unit was not verified by systemd');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-unit-'));
  try {
    const file = path.join(dir, 'farmstead@1.service');
    writeFileSync(file, NODE_UNIT.replaceAll('/opt/farmstead', ROOT));
    const result = await run('systemd-analyze', ['verify', file]).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    const problems = result.stderr
      .split('\n')
      .filter((line) => line.includes('farmstead@'))
      .join('\n');
    assert.equal(problems, '', problems);
    assert.equal(result.code, 0, result.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
