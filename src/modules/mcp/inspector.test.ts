/**
 * The MCP Inspector's CLI (the pinned @modelcontextprotocol/inspector in package.json) against a real
 * server: it lists tools, resources and prompts, and its --strict schema portability check finds nothing
 * (no error, no warning) in any tool's input or output schema, in either protocol era.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
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

/** Runs the Inspector CLI with HOME set to `home`; a non-zero exit is returned, not thrown. */
async function inspector(home: string, url: string, args: readonly string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [INSPECTOR, '--cli', '--transport', 'http', '--server-url', url, '--format', 'json', ...args],
      { env: { ...process.env, HOME: home }, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: Number(e.code ?? 1), stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The check is live: the same CLI run against a one-tool server whose input schema has the bare `false`
 * our house_command once had (in dependentSchemas) exits 6 with the finding.
 */
test('the Inspector --strict check refuses a schema with a bare false', async () => {
  const { McpServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const json = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' } },
    dependentSchemas: { a: { properties: { b: false } } },
  };
  const schema = {
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'bad', version: '1.0.0' });
    server.registerTool(
      'bad',
      { description: 'A tool with a bare false.', inputSchema: schema },
      async () => ({
        content: [{ type: 'text', text: 'ok' }],
      }),
    );
    return server;
  });
  const http = createServer(async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(name, value);
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(body ? { body } : {}) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const home = await mkdtemp(join(tmpdir(), 'farmstead-inspector-'));
  try {
    const port = (http.address() as AddressInfo).port;
    const outcome = await inspector(home, `http://127.0.0.1:${port}/mcp`, [
      '--method',
      'tools/list',
      '--strict',
    ]);
    assert.equal(outcome.code, 6, outcome.stderr);
    assert.match(outcome.stderr, /Bare `false`/);
  } finally {
    await handler.close();
    await new Promise((resolve) => http.close(resolve));
    await rm(home, { recursive: true, force: true });
  }
});

forEachEngine('MCP Inspector CLI', (t) => {
  // The Inspector keeps a catalog and OAuth state under HOME: a throwaway one per run.
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'farmstead-inspector-'));
  });
  after(() => rm(home, { recursive: true, force: true }));

  async function inspect(key: string, era: 'legacy' | 'modern', ...args: string[]): Promise<Outcome> {
    // Every toolset, the opt-in herdbook too, so --strict checks every tool's schemas.
    const url = `${await baseUrl(t())}/mcp?toolsets=all`;
    return inspector(home, url, ['--header', `Authorization: Bearer ${key}`, '--protocol-era', era, ...args]);
  }

  test('lists tools with --strict clean, resources and prompts, in both protocol eras', async () => {
    const acct = await t().sharedAccount();
    const outcomes = await Promise.all(
      (['legacy', 'modern'] as const).flatMap((era) => [
        // Every tool, the opt-in toolsets too, so --strict checks each schema.
        inspect(acct.test_key, era, '--header', 'X-MCP-Toolsets: all', '--method', 'tools/list', '--strict'),
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
