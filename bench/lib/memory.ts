/** A process's resident memory by what holds it (Linux, /proc/<pid>/smaps): bench/broker-memory.ts. */
import { readFileSync } from 'node:fs';

/** Resident memory (MB) of a process by what holds it, from /proc/<pid>/smaps. */
export function residentByKind(pid: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const [, start = '', end = '', perms = '', name = ''] = head;
      const from = BigInt(`0x${start}`);
      const size = BigInt(`0x${end}`) - from;
      if (name.endsWith('/node')) kind = 'node binary (file, shared)';
      else if (name.startsWith('/')) kind = 'other files';
      else if (name === '[heap]') kind = 'malloc, main arena';
      else if (name.startsWith('[')) kind = name;
      else if (perms.includes('x')) kind = 'V8 code range';
      // glibc's other arenas are 64 MB-aligned heaps (its HEAP_MAX_SIZE); V8's pages are 256 KB chunks.
      else if (from % (64n << 20n) === 0n && size > 1n << 20n) kind = 'malloc, thread arenas';
      else kind = 'V8 heap pages, other mmaps';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]) / 1024;
  }
  return kinds;
}
