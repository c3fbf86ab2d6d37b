/**
 * Inbreeding coefficients of a whole pedigree by Meuwissen and Luo's method (Genet. Sel. Evol. 24 (1992)
 * 305–313): each animal's row of the relationship matrix's Cholesky factor is walked through its ancestors,
 * oldest last, so F is exact (every term a sum of powers of ½: 0.25, 0.125 and 0.0625 come out exactly in
 * binary floating point) and the cost is the number of ancestors each animal has, not the square of the herd.
 * Full siblings next to each other share the work (their F is the same).
 */

/** One animal: its id, and its parents' ids (null when unknown). A parent id not among the nodes is a founder. */
export interface PedigreeNode {
  id: string;
  sire: string | null;
  dam: string | null;
}

/** Parents before offspring (by generation), full siblings side by side; typed arrays, 0 the unknown parent. */
interface Ordered {
  ids: string[];
  sire: Int32Array;
  dam: Int32Array;
  generation: Int32Array;
}

function order(nodes: readonly PedigreeNode[]): Ordered {
  const byId = new Map<string, PedigreeNode>();
  for (const node of nodes) byId.set(node.id, node);
  for (const node of nodes) {
    for (const parent of [node.sire, node.dam]) {
      if (parent !== null && !byId.has(parent)) byId.set(parent, { id: parent, sire: null, dam: null });
    }
  }
  // Generation: 0 for a founder, one more than the older parent's. Iterative, so a deep line does not recurse.
  const generation = new Map<string, number>();
  for (const start of byId.values()) {
    if (generation.has(start.id)) continue;
    const stack: PedigreeNode[] = [start];
    const onStack = new Set<string>([start.id]);
    while (stack.length > 0) {
      const node = stack[stack.length - 1] as PedigreeNode;
      let waiting = false;
      for (const parent of [node.sire, node.dam]) {
        if (parent === null || generation.has(parent)) continue;
        // A loop (refused on write, so only in damaged data) is cut here: the parent counts as unknown.
        if (onStack.has(parent)) continue;
        stack.push(byId.get(parent) as PedigreeNode);
        onStack.add(parent);
        waiting = true;
      }
      if (waiting) continue;
      stack.pop();
      onStack.delete(node.id);
      const gens = [node.sire, node.dam].map((p) => (p === null ? -1 : (generation.get(p) ?? -1)));
      generation.set(node.id, Math.max(...gens) + 1);
    }
  }
  const ids = [...byId.keys()].sort((a, b) => {
    const ga = generation.get(a) ?? 0;
    const gb = generation.get(b) ?? 0;
    if (ga !== gb) return ga - gb;
    const na = byId.get(a) as PedigreeNode;
    const nb = byId.get(b) as PedigreeNode;
    const key = (n: PedigreeNode) => `${n.sire ?? ''}\u0000${n.dam ?? ''}`;
    const ka = key(na);
    const kb = key(nb);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const index = new Map<string, number>();
  for (const [i, id] of ids.entries()) index.set(id, i + 1);
  const sire = new Int32Array(ids.length + 1);
  const dam = new Int32Array(ids.length + 1);
  const gen = new Int32Array(ids.length + 1);
  ids.forEach((id, i) => {
    gen[i + 1] = generation.get(id) ?? 0;
    const node = byId.get(id) as PedigreeNode;
    const s = node.sire === null ? 0 : (index.get(node.sire) ?? 0);
    const d = node.dam === null ? 0 : (index.get(node.dam) ?? 0);
    // A parent of a later generation than its child can only come from a cut loop: unknown.
    sire[i + 1] = s > i ? 0 : s;
    dam[i + 1] = d > i ? 0 : d;
  });
  return { ids, sire, dam, generation: gen };
}

/**
 * Meuwissen and Luo over ordered parents (index 0: unknown). The ancestors still to visit are kept in one
 * bucket per generation, visited youngest generation first: an ancestor is always of an older generation than
 * its descendants, so no heap is needed (within a generation the order does not matter).
 */
export function meuwissenLuo(sire: Int32Array, dam: Int32Array, generation: Int32Array): Float64Array {
  const n = sire.length - 1;
  const F = new Float64Array(n + 1);
  const D = new Float64Array(n + 1);
  const L = new Float64Array(n + 1);
  const queued = new Uint8Array(n + 1);
  let maxGeneration = 0;
  for (let i = 1; i <= n; i++) maxGeneration = Math.max(maxGeneration, generation[i] as number);
  // Bucket g holds at most the animals of generation g: one flat array, an offset and a fill per generation.
  const start = new Int32Array(maxGeneration + 2);
  for (let i = 1; i <= n; i++)
    start[(generation[i] as number) + 1] = (start[(generation[i] as number) + 1] as number) + 1;
  for (let g = 1; g <= maxGeneration + 1; g++) start[g] = (start[g] as number) + (start[g - 1] as number);
  const fill = new Int32Array(maxGeneration + 1);
  const bucket = new Int32Array(n + 1);
  const queue = (j: number) => {
    queued[j] = 1;
    const g = generation[j] as number;
    bucket[(start[g] as number) + (fill[g] as number)] = j;
    fill[g] = (fill[g] as number) + 1;
  };
  F[0] = -1;
  for (let i = 1; i <= n; i++) {
    const s = sire[i] as number;
    const d = dam[i] as number;
    D[i] = 0.5 - 0.25 * ((F[s] as number) + (F[d] as number));
    if (s === 0 || d === 0) continue; // F is 0 with an unknown parent.
    if (s === sire[i - 1] && d === dam[i - 1]) {
      F[i] = F[i - 1] as number;
      continue;
    }
    let fi = -1;
    L[i] = 1;
    queue(i);
    for (let g = generation[i] as number; g >= 0; g--) {
      const base = start[g] as number;
      // The bucket of generation g fills only from younger generations, all done by now.
      for (let k = 0; k < (fill[g] as number); k++) {
        const j = bucket[base + k] as number;
        queued[j] = 0;
        const lj = L[j] as number;
        const half = 0.5 * lj;
        const sj = sire[j] as number;
        const dj = dam[j] as number;
        if (sj !== 0) {
          if (queued[sj] === 0) queue(sj);
          L[sj] = (L[sj] as number) + half;
        }
        if (dj !== 0) {
          if (queued[dj] === 0) queue(dj);
          L[dj] = (L[dj] as number) + half;
        }
        fi += lj * lj * (D[j] as number);
        L[j] = 0;
      }
      fill[g] = 0;
    }
    F[i] = fi;
  }
  F[0] = 0;
  return F;
}

/** Every animal's inbreeding coefficient (a fraction), founders and unknown parents 0. */
export function inbreedingCoefficients(nodes: readonly PedigreeNode[]): Map<string, number> {
  const { ids, sire, dam, generation } = order(nodes);
  const F = meuwissenLuo(sire, dam, generation);
  const out = new Map<string, number>();
  for (const [i, id] of ids.entries()) out.set(id, F[i + 1] as number);
  return out;
}

/** The coefficient an offspring of `sire` × `dam` would have: half their relationship. */
export function offspringInbreeding(nodes: readonly PedigreeNode[], sire: string, dam: string): number {
  const probe = '\u0000offspring';
  return inbreedingCoefficients([...nodes, { id: probe, sire, dam }]).get(probe) ?? 0;
}
