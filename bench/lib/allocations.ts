/**
 * Summarises a V8 sampling heap profile (`.heapprofile`, from the inspector's HeapProfiler.startSampling
 * with the objects later collected kept, as `bench/broker-memory.ts` takes it): the bytes allocated per
 * function and per file or package, self and, for our own files, inclusive. What allocates the most is
 * what fills the young generation and, when it lives a few seconds, the old one.
 *   node bench/lib/allocations.ts <file.heapprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { packageOf, sourceOf } from './profile.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** `requests`: how many requests the profile covers, for the bytes one allocated. */
export function summariseAllocations(file: string, top = 25, requests?: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  const walk = (node: HeapNode, stack: string[]) => {
    const at = sourceOf(node.callFrame.url);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${at}:${node.callFrame.lineNumber + 1}`;
    const own = at.startsWith('src/') ? [...stack, name] : stack;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(fnSelf, name, node.selfSize);
      add(fileSelf, packageOf(at), node.selfSize);
      for (const key of new Set(own)) add(inclusive, key, node.selfSize);
    }
    for (const child of node.children) walk(child, own);
  };
  walk(profile.head, []);
  const pct = (n: number) => `${((n / total) * 100).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, n]) => `${pct(n)}  ${k}`)
      .join('\n');
  return [
    `${(total / 1048576).toFixed(1)} MB sampled` +
      (requests ? `, ${Math.round(total / requests / 1024)} KB a request (${requests} requests)` : ''),
    '\nallocated by file or package (self):',
    list(fileSelf),
    '\nallocated by function (self):',
    list(fnSelf),
    '\nallocated under src/ functions (inclusive):',
    list(inclusive),
  ].join('\n');
}

if (import.meta.main) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/lib/allocations.ts <file.heapprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseAllocations(file, top ? Number(top) : undefined)}\n`);
}
