/**
 * The MCP Inspector's CLI (the pinned @modelcontextprotocol/inspector in package.json) against a real
 * server: it lists tools, resources and prompts, and its --strict schema portability check finds nothing
 * (no error, no warning) in any tool's input or output schema, in either protocol era.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { forEachEngine } from '../../../test/harness.ts';
import { baseUrl } from '../../../test/mcp.ts';
import { TOOLS } from './server.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

forEachEngine('MCP Inspector CLI', (t) => {
  // The Inspector keeps a catalog and OAuth state under HOME: a throwaway one per run.
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'farmstead-inspector-'));
  });
  after(() => rm(home, { recursive: true, force: true }));

  async function inspect(key: string, era: 'legacy' | 'modern', ...args: string[]): Promise<Outcome> {
    const url = `${await baseUrl(t())}/mcp`;
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          '--transport',
          'http',
          '--server-url',
          url,
          '--header',
          `Authorization: Bearer ${key}`,
          '--protocol-era',
          era,
          '--format',
          'json',
          ...args,
        ],
        { env: { ...process.env, HOME: home }, timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: Number(e.code ?? 1), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }

  test('lists tools with --strict clean, resources and prompts, in both protocol eras', async () => {
    const acct = await t().sharedAccount();
    const outcomes = await Promise.all(
      (['legacy', 'modern'] as const).flatMap((era) => [
        inspect(acct.test_key, era, '--method', 'tools/list', '--strict'),
        inspect(acct.test_key, era, '--method', 'resources/list'),
        inspect(acct.test_key, era, '--method', 'prompts/list'),
      ]),
    );
    for (const [i, outcome] of outcomes.entries()) {
      assert.equal(outcome.code, 0, `run ${i} exited ${outcome.code}: ${outcome.stderr}`);
    }
    for (const strict of [outcomes[0], outcomes[3]]) {
      assert.ok(strict);
      const reply = JSON.parse(strict.stdout) as {
        result: { tools: { name: string }[] };
        schemaFindings?: unknown;
      };
      assert.equal(reply.result.tools.length, TOOLS.length);
      // --strict puts every finding (error or warning) in schemaFindings and prints a report on stderr.
      assert.equal(reply.schemaFindings, undefined, JSON.stringify(reply.schemaFindings));
      assert.doesNotMatch(strict.stderr, /portability|warning/i);
    }
    for (const listed of [outcomes[1], outcomes[4]]) {
      const reply = JSON.parse(String(listed?.stdout)) as { result: { resources: { uri: string }[] } };
      const uris = reply.result.resources.map((r) => r.uri);
      assert.ok(uris.includes('farmstead://catalog'));
      assert.ok(uris.includes(`farmstead://farms/${acct.sample_farm_id}/brief`));
    }
    for (const listed of [outcomes[2], outcomes[5]]) {
      const reply = JSON.parse(String(listed?.stdout)) as { result: { prompts: { name: string }[] } };
      assert.deepEqual(reply.result.prompts.map((p) => p.name).sort(), [
        'evening_lockup',
        'investigate_alert',
        'morning_check',
      ]);
    }
  });
});
