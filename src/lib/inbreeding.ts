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
  // Every id (parents not among the nodes as founders) as an integer; −1 is an unknown parent.
  const index = new Map<string, number>();
  const names: string[] = [];
  const indexOf = (id: string): number => {
    let i = index.get(id);
    if (i === undefined) {
      i = names.length;
      index.set(id, i);
      names.push(id);
    }
    return i;
  };
  for (const node of nodes) indexOf(node.id);
  const given = names.length;
  const sireOf: number[] = new Array(given).fill(-1);
  const damOf: number[] = new Array(given).fill(-1);
  for (const node of nodes) {
    const i = index.get(node.id) as number;
    sireOf[i] = node.sire === null ? -1 : indexOf(node.sire);
    damOf[i] = node.dam === null ? -1 : indexOf(node.dam);
  }
  const n = names.length;
  for (let i = given; i < n; i++) {
    sireOf.push(-1);
    damOf.push(-1);
  }
  // Generation: 0 for a founder, one more than the older parent's; an explicit stack, so a deep line does not
  // recurse. A loop (refused on write, so only in damaged data) is cut: the parent on the stack counts as unknown.
  const generation = new Int32Array(n);
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const stack: number[] = [];
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    stack.push(root);
    state[root] = 1;
    while (stack.length > 0) {
      const i = stack[stack.length - 1] as number;
      const s = sireOf[i] as number;
      const d = damOf[i] as number;
      if (s >= 0 && state[s] === 0) {
        state[s] = 1;
        stack.push(s);
        continue;
      }
      if (d >= 0 && state[d] === 0) {
        state[d] = 1;
        stack.push(d);
        continue;
      }
      if (s >= 0 && state[s] === 1) sireOf[i] = -1;
      if (d >= 0 && state[d] === 1) damOf[i] = -1;
      const gs = (sireOf[i] as number) >= 0 ? (generation[sireOf[i] as number] as number) : -1;
      const gd = (damOf[i] as number) >= 0 ? (generation[damOf[i] as number] as number) : -1;
      generation[i] = Math.max(gs, gd) + 1;
      state[i] = 2;
      stack.pop();
    }
  }
  // Generation by generation; within one, full siblings (the same pair of parents) side by side.
  let maxGeneration = 0;
  for (let i = 0; i < n; i++) maxGeneration = Math.max(maxGeneration, generation[i] as number);
  const byGeneration: Array<Map<number, number[]>> = Array.from(
    { length: maxGeneration + 1 },
    () => new Map(),
  );
  for (let i = 0; i < n; i++) {
    const pair = ((sireOf[i] as number) + 1) * (n + 1) + ((damOf[i] as number) + 1);
    const families = byGeneration[generation[i] as number] as Map<number, number[]>;
    const family = families.get(pair);
    if (family) family.push(i);
    else families.set(pair, [i]);
  }
  const position = new Int32Array(n); // 1-based place in the order
  const ids: string[] = [];
  for (const families of byGeneration) {
    for (const family of families.values()) {
      for (const i of family) {
        ids.push(names[i] as string);
        position[i] = ids.length;
      }
    }
  }
  const sire = new Int32Array(n + 1);
  const dam = new Int32Array(n + 1);
  const gen = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const at = position[i] as number;
    const s = sireOf[i] as number;
    const d = damOf[i] as number;
    sire[at] = s < 0 ? 0 : (position[s] as number);
    dam[at] = d < 0 ? 0 : (position[d] as number);
    gen[at] = generation[i] as number;
  }
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
