/** Numbers and names the docs state about the code, checked against the code. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { TOOLS } from '../src/modules/mcp/server.ts';
import { DEFAULT_TOOLSETS, TOOLSETS } from '../src/modules/mcp/toolsets.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The tools a connection gets without naming toolsets; the opt-in sets' are counted on their own. */
const DEFAULT = new Set<string>(DEFAULT_TOOLSETS.flatMap((name) => TOOLSETS[name]));
const DEFAULT_TOOLS = TOOLS.filter((tool) => DEFAULT.has(tool.name));

test('the README and docs/mcp.md count the MCP tools there are', () => {
  const optIn = /plus the opt-in `herdbook` toolset's (\d+)/.exec(read('README.md'));
  assert.equal(Number(optIn?.[1]), TOOLS.length - DEFAULT_TOOLS.length, 'README.md counts the opt-in tools');
  const readme = /Its (\d+) tools \(the spec's (\d+) and `([a-z_]+)`\)/.exec(read('README.md'));
  assert.ok(readme, 'README.md says how many MCP tools there are');
  assert.equal(Number(readme[1]), DEFAULT_TOOLS.length);
  const mcp = /All (\d+) tools of the spec, plus `([a-z_]+)`/.exec(read('docs/mcp.md'));
  assert.ok(mcp, 'docs/mcp.md says how many tools the spec has');
  assert.equal(Number(mcp[1]) + 1, DEFAULT_TOOLS.length);
  assert.equal(Number(readme[2]), Number(mcp[1]));
  const names = TOOLS.map((tool) => tool.name);
  assert.ok(names.includes(readme[3] ?? '') && names.includes(mcp[2] ?? ''));
});
