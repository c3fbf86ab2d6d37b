/**
 * The species the herd book knows, each under the names farmers and other programs write ("cow", "bovine",
 * "ewes", "swine"), and the foods each gives the food chain. An animal's species stays free text; these are
 * the one table that says which known species a name is: the withdrawal rules (domain/withdrawal.ts: no egg
 * withdrawal for a ewe, no milk withdrawal for a hen), the weight limits (domain/weights.ts) and the breeding
 * registry (domain/breeding.ts) all read it. A name it does not know is taken as giving every food.
 */
/** The foods an animal gives the food chain, each with its own withdrawal (domain/withdrawal.ts). */
export const FOODS = ['meat', 'milk', 'eggs'] as const;
export type Food = (typeof FOODS)[number];

export const SPECIES = Object.freeze({
  cattle: { names: ['cattle', 'cow', 'cows', 'bovine', 'beef', 'dairy'], foods: ['meat', 'milk'] },
  sheep: { names: ['sheep', 'ovine', 'ewe', 'ewes', 'lamb', 'lambs'], foods: ['meat', 'milk'] },
  goats: { names: ['goat', 'goats', 'caprine'], foods: ['meat', 'milk'] },
  pigs: { names: ['pig', 'pigs', 'swine', 'porcine', 'hog', 'hogs'], foods: ['meat'] },
  horses: { names: ['horse', 'horses', 'equine', 'pony', 'ponies'], foods: ['meat', 'milk'] },
  deer: { names: ['deer', 'cervine'], foods: ['meat'] },
  alpacas: { names: ['alpaca', 'alpacas'], foods: ['meat'] },
  llamas: { names: ['llama', 'llamas'], foods: ['meat'] },
  chickens: {
    names: ['chicken', 'chickens', 'hen', 'hens', 'poultry', 'layer', 'layers', 'broiler', 'broilers'],
    foods: ['meat', 'eggs'],
  },
  ducks: { names: ['duck', 'ducks'], foods: ['meat', 'eggs'] },
  turkeys: { names: ['turkey', 'turkeys'], foods: ['meat', 'eggs'] },
  geese: { names: ['goose', 'geese'], foods: ['meat', 'eggs'] },
  quail: { names: ['quail', 'quails'], foods: ['meat', 'eggs'] },
  // Working dogs are not food-producing animals: no withdrawal applies to them.
  dogs: { names: ['dog', 'dogs'], foods: [] },
} as const satisfies Record<string, { names: readonly string[]; foods: readonly Food[] }>);

export type KnownSpecies = keyof typeof SPECIES;

const BY_NAME: ReadonlyMap<string, KnownSpecies> = new Map(
  (Object.keys(SPECIES) as KnownSpecies[]).flatMap((key) =>
    SPECIES[key].names.map((name) => [name, key] as const),
  ),
);

/** The known species an animal's free-form species names ("Cow " → cattle), or null. */
export function knownSpeciesOf(species: string): KnownSpecies | null {
  return BY_NAME.get(species.trim().toLowerCase()) ?? null;
}

/** Whether animals of this species give this food (an unknown species: every food, the careful answer). */
export function givesFood(species: string, food: Food): boolean {
  const known = knownSpeciesOf(species);
  return known === null || (SPECIES[known].foods as readonly Food[]).includes(food);
}
