/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time per function and per file, the top
 * entries, so a benchmark miss can be traced to what the server spends its time on.
 *   node bench/lib/profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * A frame's script (a file: URL, or a path for CommonJS), shortened to `src/…`, `bench/…` or
 * `node_modules/…`; `(native)` when it has none.
 */
export function sourceOf(url: string): string {
  return url.replace(/^(?:file:\/\/)?\/.*?\/(node_modules|src|bench)\//, '$1/') || '(native)';
}

/** A dependency's files as one entry (`node_modules/<package>`); our own files as they are. */
export function packageOf(source: string): string {
  if (!source.startsWith('node_modules/')) return source;
  return source
    .split('/')
    .slice(0, source.startsWith('node_modules/@') ? 3 : 2)
    .join('/');
}

export function summarise(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const where = sourceOf(node.callFrame.url);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    fnSelf.set(name, (fnSelf.get(name) ?? 0) + t);
    const fileKey = packageOf(where);
    fileSelf.set(fileKey, (fileSelf.get(fileKey) ?? 0) + t);
    // Inclusive time of our own source files: every distinct src/ frame on the stack gets the sample.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      const source = frame ? sourceOf(frame.callFrame.url) : '';
      if (!frame || !source.startsWith('src/')) continue;
      const key = `${frame.callFrame.functionName || '(anonymous)'} ${source}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + t);
    }
  }
  const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `${pct(t)}  ${k}`)
      .join('\n');
  return [
    `total ${(total / 1e6).toFixed(1)} s sampled`,
    '\nself time by file or package:',
    list(fileSelf, top),
    '\nself time by function:',
    list(fnSelf, top),
    '\ninclusive time of src/ functions:',
    list(inclusive, top),
  ].join('\n');
}

if (import.meta.main) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/lib/profile.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarise(file, Number(top ?? 25))}\n`);
}
