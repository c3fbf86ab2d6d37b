/**
 * Who a report's alerts are about: the device itself, or the animal it is on, named the way a farmer
 * knows it.
 */
import type { Trx } from '../../db/schema.ts';
import type { AlertWord } from '../../domain/alert-words.ts';
import type { IngestedReport } from './report.ts';
import { findAnimalLabel } from './repository.ts';
import type { SubjectLabel } from './wording.ts';

export function deviceLabel(device: IngestedReport['device']): SubjectLabel {
  return {
    type: 'device',
    id: device.id,
    name: device.name,
    device: { name: device.name, type: device.type },
  };
}

/**
 * Names an animal the way a farmer knows it: "Daisy (tag 114)", "tag 114", or its id; with its
 * group, for group-scoped rules. A name with a tag is also alert words (`animal.named`, `animal.tag`), so
 * each language says "tag" its own way ("Bella (crotal 126)"); the English name is written as it always was.
 */
export async function animalLabel(
  trx: Trx,
  farmId: string,
  animalId: string,
  device: IngestedReport['device'],
): Promise<{ label: SubjectLabel; groupId: string | null }> {
  const animal = device.animal !== undefined ? device.animal : await findAnimalLabel(trx, farmId, animalId);
  const tag = animal?.tag ? `tag ${animal.tag}` : null;
  let name = `animal ${animalId}`;
  if (animal?.name) name = tag ? `${animal.name} (${tag})` : animal.name;
  else if (tag) name = tag;
  let words: AlertWord | undefined;
  if (animal?.tag) {
    words = animal.name
      ? { key: 'animal.named', params: { name: animal.name, tag: animal.tag } }
      : { key: 'animal.tag', params: { tag: animal.tag } };
  }
  const label: SubjectLabel = {
    type: 'animal',
    id: animalId,
    name,
    ...(words ? { words } : {}),
    device: { name: device.name, type: device.type },
  };
  return { label, groupId: animal?.group_id ?? null };
}
