/**
 * The sample farm's herd book (issue 46): its holding number, a medicine cabinet with batches (one expiring
 * within 30 days, one medicine low on stock), treatments (a course last week that keeps Pip inside his meat
 * withdrawal, a mastitis course that keeps Daisy's milk out of the tank until tomorrow, the herd's pour-on two
 * months ago) and movements on and off the holding. Seeded through the same services the API calls, by one call
 * from `seedSampleFarm`; the reset clears it with the rest (repository.ts) and seeds it again.
 */
import type { Db } from '../../db/schema.ts';
import { DAY_MS, HOUR_MS, toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { updateFarmRow } from '../farms/repository.ts';
import type { CreateMedicineInput } from '../medicines/schemas.ts';
import { addBatch, createMedicine } from '../medicines/service.ts';
import type { CreateMovementInput } from '../movements/schemas.ts';
import { createMovement } from '../movements/service.ts';
import type { CreateTreatmentInput } from '../treatments/schemas.ts';
import { createTreatments } from '../treatments/service.ts';
import type { GroupKey } from './data.ts';

/** The farm's US premises ID (seven characters; a made-up one). */
export const SAMPLE_HOLDING = { number: '00MQ4T7', type: 'premises_id' } as const;

type MedicineKey = 'oxytet' | 'penicillin' | 'flunixin' | 'ivermectin';

const SUPPLIER = 'Boone County Farm Supply';

/** The cabinet: each medicine with its label and its batches (expiry and purchase in days from now). */
const MEDICINES: ReadonlyArray<{
  key: MedicineKey;
  medicine: CreateMedicineInput;
  batches: Array<{ batch: string; expiresInDays: number; quantity: number; boughtDaysAgo: number }>;
}> = [
  {
    key: 'oxytet',
    medicine: {
      name: 'Oxytetracycline 200 LA',
      unit: 'ml',
      active_ingredient: 'oxytetracycline 200 mg/ml',
      form: 'solution for injection',
      withdrawal: { meat_days: 28, milk_days: 4 },
      licensed_species: ['cattle', 'pig', 'sheep'],
    },
    // Expires within 30 days: the brief lists it.
    batches: [{ batch: 'OT-24117', expiresInDays: 18, quantity: 250, boughtDaysAgo: 95 }],
  },
  {
    key: 'penicillin',
    medicine: {
      name: 'Penicillin G Procaine',
      unit: 'ml',
      active_ingredient: 'procaine benzylpenicillin 300,000 IU/ml',
      form: 'suspension for injection',
      withdrawal: { meat_days: 10, milk_days: 4 },
      licensed_species: ['cattle', 'sheep', 'pig'],
      low_stock_at: 100,
    },
    batches: [{ batch: 'PG-5521', expiresInDays: 240, quantity: 250, boughtDaysAgo: 40 }],
  },
  {
    key: 'flunixin',
    medicine: {
      name: 'Flunixin Injection',
      unit: 'ml',
      active_ingredient: 'flunixin meglumine 50 mg/ml',
      form: 'solution for injection',
      // A 36-hour milk period: 2 whole days.
      withdrawal: { meat_days: 4, milk_days: 1.5 },
      licensed_species: ['cattle'],
    },
    batches: [{ batch: 'FX-8812', expiresInDays: 300, quantity: 100, boughtDaysAgo: 40 }],
  },
  {
    key: 'ivermectin',
    medicine: {
      name: 'Ivermectin Pour-On',
      unit: 'ml',
      active_ingredient: 'ivermectin 5 mg/ml',
      form: 'pour-on',
      withdrawal: { meat_days: 48 },
      licensed_species: ['cattle'],
    },
    // Most of it went on the herd two months ago: low on stock (a fifth of what was bought).
    batches: [{ batch: 'IV-3390', expiresInDays: 500, quantity: 1000, boughtDaysAgo: 70 }],
  },
];

/** What the herd book needs of the seed so far: the animals and groups by their keys in data.ts. */
export interface SeededRecords {
  animals: ReadonlyMap<string, string>;
  groups: ReadonlyMap<GroupKey, string>;
}

function idOf<K>(map: ReadonlyMap<K, string>, key: K): string {
  const id = map.get(key);
  if (!id) throw new Error(`sample farm: nothing seeded for ${String(key)}`);
  return id;
}

/** The treatments, oldest first: who, what, when (days before now) and the course. */
function treatments(
  seeded: SeededRecords,
  med: (key: MedicineKey) => { medicine_id: string; batch_id: string },
  now: number,
): CreateTreatmentInput[] {
  return [
    {
      ...med('ivermectin'),
      group_id: idOf(seeded.groups, 'herd'),
      dose: 52,
      dose_unit: 'ml',
      route: 'pour_on',
      at: toIso(now - 60 * DAY_MS),
      reason: 'Worms and lice, autumn treatment',
      given_by: 'Sam',
    },
    // Last week's course: pinkeye in a steer calf, three doses two days apart; meat clear in about 25 days.
    {
      ...med('oxytet'),
      animal_ids: [idOf(seeded.animals, 'pip')],
      dose: 9,
      dose_unit: 'ml',
      route: 'injection_im',
      site: 'left neck',
      at: toIso(now - 7 * DAY_MS),
      course: { doses: 3, every_hours: 48 },
      reason: 'Pinkeye, left eye',
      given_by: 'Sam',
      vet: 'Dr. Alvarez, Boone Valley Vets',
    },
    // Mastitis in a nursing cow: milk out of the tank until tomorrow.
    {
      ...med('penicillin'),
      animal_ids: [idOf(seeded.animals, 'daisy')],
      dose: 30,
      dose_unit: 'ml',
      route: 'injection_im',
      site: 'right neck',
      at: toIso(now - 5 * DAY_MS + 2 * HOUR_MS),
      course: { doses: 3, every_hours: 24 },
      reason: 'Mastitis, rear left quarter',
      given_by: 'Jordan',
      vet: 'Dr. Alvarez, Boone Valley Vets',
    },
  ];
}

/** Movements on and off the holding, oldest first. */
function movements(seeded: SeededRecords, now: number): CreateMovementInput[] {
  return [
    {
      direction: 'on',
      at: toIso(now - 100 * DAY_MS),
      animal_ids: [idOf(seeded.animals, 'duke')],
      other_holding: '00L3KQ9 (Hartman Angus, Fulton)',
      reason: 'purchase',
      transporter: 'Show-Me Livestock Hauling',
      vehicle: 'MO 4HT-229',
    },
    {
      direction: 'off',
      at: toIso(now - 20 * DAY_MS),
      head_count: 3,
      species: 'cattle',
      other_holding: 'Mid-Missouri Stockyards, Boonville',
      reason: 'sale',
      transporter: 'Show-Me Livestock Hauling',
      vehicle: 'MO 4HT-229',
    },
  ];
}

/**
 * Seeds the herd book on the sample farm, in the seed's transaction: the holding number, the medicines and
 * their batches, the treatments (each with its withdrawal, stock taken and `treatment` events) and movements.
 */
export async function seedHerdBook(
  trx: Db,
  scope: Scope,
  farmId: string,
  seeded: SeededRecords,
  now: number,
): Promise<void> {
  await updateFarmRow(trx, farmId, { holding: JSON.stringify(SAMPLE_HOLDING) });
  const stocked = new Map<MedicineKey, { medicine_id: string; batch_id: string }>();
  for (const [i, m] of MEDICINES.entries()) {
    const created = await createMedicine(trx, scope, farmId, m.medicine, now - 120 * DAY_MS + i);
    let batchId = '';
    for (const b of m.batches) {
      const bought = now - b.boughtDaysAgo * DAY_MS;
      const medicine = await addBatch(
        trx,
        scope,
        created.id,
        {
          batch: b.batch,
          expiry: toIso(now + b.expiresInDays * DAY_MS),
          quantity: b.quantity,
          supplier: SUPPLIER,
          purchased_at: toIso(bought),
          proof_of_purchase: `INV-${b.batch}`,
        },
        bought,
      );
      batchId = medicine.batches[0]?.id ?? '';
    }
    stocked.set(m.key, { medicine_id: created.id, batch_id: batchId });
  }
  const med = (key: MedicineKey) => {
    const found = stocked.get(key);
    if (!found) throw new Error(`sample farm: no medicine ${key}`);
    return found;
  };
  for (const input of treatments(seeded, med, now)) {
    await createTreatments(trx, scope, farmId, input, Date.parse(input.at ?? '') || now);
  }
  for (const input of movements(seeded, now)) {
    await createMovement(trx, scope, farmId, input, Date.parse(input.at));
  }
}
