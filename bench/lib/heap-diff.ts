/**
 * Two V8 heap snapshots compared by constructor: what the second holds that the first did not (count and
 * self size of the objects new in the second, by id), and with `--retainers <name>` the path from the GC
 * roots to the new objects of that constructor (whatever keeps them alive), the most common paths first.
 * HEAP_DIFF_CODE=1 splits V8's code objects (bytecode, scope infos, feedback…) by name.
 *
 *   npx node bench/lib/heap-diff.ts before.heapsnapshot after.heapsnapshot [--top 40] [--retainers Packet]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

class Heap {
  readonly types: string[];
  readonly edgeTypes: string[];
  readonly strings: string[];
  readonly nodeCount: number;
  readonly type: Uint8Array;
  readonly name: Uint32Array;
  readonly id: Uint32Array;
  readonly size: Float64Array;
  readonly firstEdge: Uint32Array;
  readonly edgeType: Uint8Array;
  readonly edgeName: Uint32Array;
  readonly edgeTo: Uint32Array;

  constructor(file: string) {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
    const meta = raw.snapshot.meta;
    const nf = meta.node_fields.length;
    const ef = meta.edge_fields.length;
    this.types = meta.node_types[0];
    this.edgeTypes = meta.edge_types[0];
    this.strings = raw.strings;
    this.nodeCount = raw.nodes.length / nf;
    const at = (field: string) => meta.node_fields.indexOf(field);
    const [t, n, i, s, e] = ['type', 'name', 'id', 'self_size', 'edge_count'].map(at) as number[];
    this.type = new Uint8Array(this.nodeCount);
    this.name = new Uint32Array(this.nodeCount);
    this.id = new Uint32Array(this.nodeCount);
    this.size = new Float64Array(this.nodeCount);
    this.firstEdge = new Uint32Array(this.nodeCount + 1);
    let edge = 0;
    for (let k = 0; k < this.nodeCount; k++) {
      const base = k * nf;
      this.type[k] = raw.nodes[base + (t as number)] as number;
      this.name[k] = raw.nodes[base + (n as number)] as number;
      this.id[k] = raw.nodes[base + (i as number)] as number;
      this.size[k] = raw.nodes[base + (s as number)] as number;
      this.firstEdge[k] = edge;
      edge += raw.nodes[base + (e as number)] as number;
    }
    this.firstEdge[this.nodeCount] = edge;
    const edgeCount = raw.edges.length / ef;
    this.edgeType = new Uint8Array(edgeCount);
    this.edgeName = new Uint32Array(edgeCount);
    this.edgeTo = new Uint32Array(edgeCount);
    for (let k = 0; k < edgeCount; k++) {
      this.edgeType[k] = raw.edges[k * ef] as number;
      this.edgeName[k] = raw.edges[k * ef + 1] as number;
      this.edgeTo[k] = (raw.edges[k * ef + 2] as number) / nf;
    }
  }

  label(k: number): string {
    const type = this.types[this.type[k] as number] ?? '?';
    const name = this.strings[this.name[k] as number] ?? '';
    if (type === 'object' || type === 'native') return name;
    if (type === 'closure') return `(closure) ${name}`;
    if (type === 'code' && process.env.HEAP_DIFF_CODE) return `(code) ${name.slice(0, 60)}`;
    return `(${type})`;
  }

  edgeLabel(e: number): string {
    const type = this.edgeTypes[this.edgeType[e] as number];
    const name = this.edgeName[e] as number;
    return type === 'element' || type === 'hidden' ? `[${name}]` : (this.strings[name] ?? String(name));
  }
}

const args = process.argv.slice(2);
const option = (flag: string) => {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args.splice(at, 2)[1];
};
const top = Number(option('--top') ?? 40);
const retainersOf = option('--retainers');
const [firstFile, secondFile] = args;
if (!firstFile || !secondFile) {
  console.error('usage: heap-diff.ts first.heapsnapshot second.heapsnapshot [--top N] [--retainers Name]');
  process.exit(2);
}
const first = new Heap(firstFile);
const old = new Set(first.id);
const second = new Heap(secondFile);

const grown = new Map<string, { count: number; bytes: number }>();
for (let k = 0; k < second.nodeCount; k++) {
  if (old.has(second.id[k] as number)) continue;
  const label = second.label(k);
  const entry = grown.get(label) ?? { count: 0, bytes: 0 };
  entry.count++;
  entry.bytes += second.size[k] as number;
  grown.set(label, entry);
}
const total = [...grown.values()].reduce((n, g) => n + g.bytes, 0);
console.log(`new in the second snapshot: ${(total / 1048576).toFixed(1)} MB (self sizes)`);
for (const [label, g] of [...grown].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  console.log(
    `${(g.bytes / 1048576).toFixed(2).padStart(8)} MB ${String(g.count).padStart(8)}  ${label.slice(0, 100)}`,
  );
}

if (retainersOf) {
  // Breadth-first from the root (node 0) over strong edges: the first path found to each node is a shortest one.
  const parent = new Int32Array(second.nodeCount).fill(-1);
  const via = new Int32Array(second.nodeCount).fill(-1);
  const weak = second.edgeTypes.indexOf('weak');
  const queue = new Uint32Array(second.nodeCount);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const k = queue[head++] as number;
    for (let e = second.firstEdge[k] as number; e < (second.firstEdge[k + 1] as number); e++) {
      if (second.edgeType[e] === weak) continue;
      const to = second.edgeTo[e] as number;
      if (parent[to] !== -1) continue;
      parent[to] = k;
      via[to] = e;
      queue[tail++] = to;
    }
  }
  let shown = 0;
  const paths = new Map<string, number>();
  for (let k = 0; k < second.nodeCount; k++) {
    if (second.label(k) !== retainersOf || old.has(second.id[k] as number)) continue;
    const steps: string[] = [];
    for (let at = k; at !== 0 && parent[at] !== -1 && steps.length < 40; at = parent[at] as number) {
      steps.push(`-${second.edgeLabel(via[at] as number)}-> ${second.label(at)}`);
    }
    const text = `(root) ${steps.reverse().join(' ')}`;
    paths.set(text, (paths.get(text) ?? 0) + 1);
    shown++;
  }
  console.log(`\npaths from the roots to the ${shown} new ${retainersOf} (most common first):`);
  for (const [text, n] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    console.log(`${n} × ${text.slice(-2000)}\n`);
  }
}
