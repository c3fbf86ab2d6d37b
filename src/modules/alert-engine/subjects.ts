/**
 * Who a report's alerts are about: the device itself, or the animal it is on, named the way a farmer
 * knows it.
 */
import type { Trx } from '../../db/schema.ts';
import { type AlertWord, renderAlertWord } from '../../domain/alert-words.ts';
import { displayEid } from '../../domain/eid.ts';
import type { IngestedReport } from './report.ts';
import { type AnimalLabelRow, findAnimalLabel } from './repository.ts';
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
 * Names an animal the way a farmer finds it: "Daisy (tag 114)", "Daisy", "tag 114"; with neither name nor
 * tag, by its EID as its label prints it ("EID 982 000123456789"), else by its group ("an untagged animal in
 * Cow-calf herd"), else "an untagged animal": never its id, which no farmer can look up in a field. Each
 * form but a bare name is also alert words (`animal.*`), so each language says it its own way ("Bella
 * (crotal 126)", "un animal sin crotal en …"); the English name is those words in English. With its group,
 * for group-scoped rules.
 */
export async function animalLabel(
  trx: Trx,
  farmId: string,
  animalId: string,
  device: IngestedReport['device'],
): Promise<{ label: SubjectLabel; groupId: string | null }> {
  const animal = device.animal !== undefined ? device.animal : await findAnimalLabel(trx, farmId, animalId);
  const words = animalWords(animal ?? null);
  const label: SubjectLabel = {
    type: 'animal',
    id: animalId,
    name: (words ? renderAlertWord('en', words) : animal?.name) ?? '',
    ...(words ? { words } : {}),
    device: { name: device.name, type: device.type },
  };
  return { label, groupId: animal?.group_id ?? null };
}

/** An animal's name as alert words; undefined for a bare name, which is the farm's text in every language. */
function animalWords(animal: AnimalLabelRow | null): AlertWord | undefined {
  if (animal?.tag) {
    return animal.name
      ? { key: 'animal.named', params: { name: animal.name, tag: animal.tag } }
      : { key: 'animal.tag', params: { tag: animal.tag } };
  }
  if (animal?.name) return undefined;
  if (animal?.eid) return { key: 'animal.eid', params: { eid: displayEid(animal.eid) } };
  if (animal?.group_name) return { key: 'animal.untagged.group', params: { group: animal.group_name } };
  return { key: 'animal.untagged', params: {} };
}
