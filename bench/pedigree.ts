/**
 * The inbreeding of a 50,000-animal pedigree (issue 47: under 2 seconds), in-process: the pure computation the
 * pedigree and mating-check routes run (src/lib/inbreeding.ts), over a herd book as a breed society's would be:
 * 15 generations of about 3,300 animals each, dams from the last generation's females and the older cows still
 * in the herd, sires from a few dozen bulls of the generation before, and an AI bull (an outside sire) on one
 * calf in five. Seeded, so every run computes the same pedigree. `BENCH_PHASES=pedigree` runs only this.
 */
import { inbreedingCoefficients, type PedigreeNode } from '../src/lib/inbreeding.ts';
import { mulberry32 } from '../src/lib/random.ts';

export const PEDIGREE_ANIMALS = 50_000;
export const PEDIGREE_TARGET_MS = 2_000;

export function simulatedPedigree(animals: number, seed = 47): PedigreeNode[] {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T | null =>
    list.length === 0 ? null : (list[Math.floor(random() * list.length)] as T);
  const generations = 15;
  const perGeneration = Math.ceil(animals / generations);
  const nodes: PedigreeNode[] = [];
  let cows: string[] = [];
  let bulls: string[] = [];
  const aiBulls = Array.from({ length: 60 }, (_, i) => `outside:ai-${i}`);
  for (let g = 0; g < generations && nodes.length < animals; g++) {
    const females: string[] = [];
    const males: string[] = [];
    for (let k = 0; k < perGeneration && nodes.length < animals; k++) {
      const id = `a${nodes.length}`;
      const sire = random() < 0.2 ? pick(aiBulls) : pick(bulls.slice(0, 40));
      nodes.push({ id, sire: g === 0 ? null : sire, dam: g === 0 ? null : pick(cows) });
      (random() < 0.5 ? females : males).push(id);
    }
    cows = [...females, ...cows.slice(0, 1_000)];
    bulls = males;
  }
  return nodes;
}

export interface PedigreeBench {
  animals: number;
  ms: number;
  mean_inbreeding: number;
  max_inbreeding: number;
}

/** Computes every coefficient of the simulated pedigree once to warm up, then three times: the median time. */
export function benchPedigree(animals = PEDIGREE_ANIMALS): PedigreeBench {
  const nodes = simulatedPedigree(animals);
  const times: number[] = [];
  let F = inbreedingCoefficients(nodes);
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    F = inbreedingCoefficients(nodes);
    times.push(performance.now() - start);
  }
  const values = nodes.map((n) => F.get(n.id) ?? 0);
  return {
    animals: nodes.length,
    ms: times.sort((a, b) => a - b)[1] as number,
    mean_inbreeding: values.reduce((a, b) => a + b, 0) / values.length,
    max_inbreeding: Math.max(...values),
  };
}
