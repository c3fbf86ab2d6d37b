/**
 * The brief's herd-book sections (issue 46, docs/brief.md): milk withheld (an animal inside its milk
 * withdrawal, every day until it ends) and milk back in the tank (on the day it ends), then the medicine
 * cabinet: batches expiring within 30 days and medicines low on stock (docs/records.md says what "low" is).
 * Read once with the brief's other facts (`readHerdBookFacts`), built into unranked items here.
 */
import type { Db } from '../../db/schema.ts';
import type { LanguageName } from '../../domain/display-units.ts';
import { localDateText } from '../../lib/local-time.ts';
import { formatMessage } from '../../lib/message-format.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { animalsWithholdingMilk, type MilkWithheld } from '../animals/withdrawal.ts';
import { type BatchRow, farmCabinet, type MedicineRow } from '../medicines/repository.ts';
import { BRIEF_ES, sayEs } from './messages.ts';
import type { BriefCounts, BriefItem } from './schemas.ts';
import type { BriefContext, Unranked } from './sections.ts';
import { formatValue, localWhen } from './wording.ts';

/** A batch is listed once its expiry is this close (issue 46: "what expires within 30 days"). */
export const EXPIRING_WITHIN_DAYS = 30;

/** Without a medicine's own `low_stock_at`, its stock is low at or below this share of what was bought. */
export const DEFAULT_LOW_STOCK_SHARE = 0.2;

export interface HerdBookFacts {
  milk: MilkWithheld[];
  cabinet: Array<{ medicine: MedicineRow; batches: BatchRow[] }>;
}

/** What the sections read: animals whose milk withdrawal ends today or later, and the medicine cabinet. */
export async function readHerdBookFacts(
  db: Db,
  farmId: string,
  today: { start: number; end: number },
): Promise<HerdBookFacts> {
  const [milk, cabinet] = await Promise.all([
    animalsWithholdingMilk(db, farmId, today.start),
    farmCabinet(db, farmId),
  ]);
  return { milk, cabinet };
}

type HerdBookCounts = Pick<
  BriefCounts,
  'milk_withheld' | 'milk_clear_today' | 'batches_expiring' | 'medicines_low_stock'
>;

/** "Daisy (114)", "tag 114", or the id when the animal has neither. */
function animalName(a: { animal_id: string; name: string | null; tag: string | null }, en: boolean): string {
  if (a.name && a.tag) return `${a.name} (${a.tag})`;
  if (a.name) return a.name;
  if (!a.tag) return a.animal_id;
  return en ? `tag ${a.tag}` : sayEs('animal.tag', { tag: a.tag });
}

function medicineWords(m: MilkWithheld['milk'], en: boolean): string {
  if (!m.batch) return m.medicine;
  return en
    ? `${m.medicine} (batch ${m.batch})`
    : sayEs('medicine.batch', { medicine: m.medicine, batch: m.batch });
}

/**
 * Milk items: an animal still inside its milk withdrawal after today is withheld (watch), one whose
 * withdrawal ends today may go back in the tank from its end (info).
 */
export function milkSection(milk: readonly MilkWithheld[], ctx: BriefContext): Unranked[] {
  const language = ctx.language ?? 'en';
  const en = language === 'en';
  const items = milk.map((a): Unranked => {
    const who = animalName(a, en);
    const when = localWhen(a.milk.until, ctx.now, ctx.timezone, language);
    const medicine = medicineWords(a.milk, en);
    const base = {
      subject_type: 'animal',
      subject_id: a.animal_id,
      ref_id: a.milk.treatment_id,
      at: toIso(a.milk.until),
    };
    if (a.milk.until >= ctx.today.end) {
      if (!en) {
        const detail = a.milk.organic ? 'milk.withheld.detail_organic' : 'milk.withheld.detail';
        return {
          kind: 'milk_withheld',
          severity: 'watch',
          title: sayEs('milk.withheld.title', { animal: who, when }),
          detail: sayEs(detail, {
            medicine,
            count: a.milk.days,
            rule: sayEs(`withdrawal.${a.milk.rule}`),
          }),
          ...base,
        };
      }
      return {
        kind: 'milk_withheld',
        severity: 'watch',
        title: `Milk from ${who} withheld until ${when}`,
        detail: `${medicine}: ${a.milk.days}-day milk withdrawal (${a.milk.rule.replace('_', ' ')}${a.milk.organic ? ', doubled for organic' : ''}). Keep the milk out of the tank.`,
        ...base,
      };
    }
    return {
      kind: 'milk_clear',
      severity: 'info',
      title: en
        ? `Milk from ${who} can go in the tank again from ${when}`
        : sayEs('milk.clear.title', { animal: who, when }),
      detail: en
        ? `The milk withdrawal after ${medicine} ends today at ${when}.`
        : sayEs('milk.clear.detail', { medicine, when }),
      ...base,
    };
  });
  // Withheld (watch) before back-in-the-tank (info), each soonest end first.
  return [
    ...items.filter((i) => i.kind === 'milk_withheld'),
    ...items.filter((i) => i.kind === 'milk_clear'),
  ];
}

const stock = (n: number, unit: string) => `${formatValue(n)} ${unit}`;

/**
 * The cabinet's items: batches with stock left that expire within 30 days (soonest first), then medicines
 * whose stock left in batches not yet expired is at or below their line (`low_stock_at`, else a fifth of what
 * those batches held when bought); a medicine never stocked is not listed.
 */
export function cabinetSection(
  cabinet: HerdBookFacts['cabinet'],
  now: number,
  language: LanguageName = 'en',
  timezone = 'UTC',
): Unranked[] {
  const en = language === 'en';
  const expiring: Array<Unranked & { expiry: number }> = [];
  const low: Unranked[] = [];
  const horizon = now + EXPIRING_WITHIN_DAYS * DAY_MS;
  for (const { medicine, batches } of cabinet) {
    if (batches.length === 0) continue;
    let left = 0;
    let bought = 0;
    for (const b of batches) {
      const remaining = Math.max(0, Number(b.quantity) - Number(b.used));
      const expiry = Number(b.expiry);
      if (expiry <= now) continue;
      left += remaining;
      bought += Number(b.quantity);
      if (expiry > horizon || remaining <= 0) continue;
      const days = Math.ceil((expiry - now) / DAY_MS);
      // The label's day, on the farm's calendar (a date-only expiry is that day's last moment there).
      const date = localDateText(expiry, timezone);
      const remains = stock(remaining, medicine.unit);
      const of = stock(Number(b.quantity), medicine.unit);
      expiring.push({
        kind: 'batch_expiring',
        severity: 'info',
        title: en
          ? `${medicine.name} batch ${b.batch} expires in ${days} ${days === 1 ? 'day' : 'days'}`
          : sayEs('batch.title', { medicine: medicine.name, batch: b.batch, count: days }),
        detail: en
          ? `Expires ${date}; ${remains} left of ${of}.`
          : sayEs('batch.detail', { date, left: remains, bought: of }),
        subject_type: 'medicine',
        subject_id: medicine.id,
        ref_id: b.id,
        at: toIso(expiry),
        expiry,
      });
    }
    const own = medicine.low_stock_at === null ? null : Number(medicine.low_stock_at);
    const line = own ?? bought * DEFAULT_LOW_STOCK_SHARE;
    if (left > line) continue;
    low.push({
      kind: 'medicine_low',
      severity: 'info',
      ...(en ? lowWords(medicine, left, bought, own) : lowWordsEs(medicine, left, bought, own)),
      subject_type: 'medicine',
      subject_id: medicine.id,
      ref_id: null,
      at: null,
    });
  }
  expiring.sort((a, b) => a.expiry - b.expiry);
  return [...expiring.map(({ expiry: _e, ...entry }) => entry), ...low];
}

/** A medicine low on stock, in English. */
function lowWords(medicine: MedicineRow, left: number, bought: number, own: number | null) {
  const why =
    own === null
      ? `at or below a fifth of the ${stock(bought, medicine.unit)} bought`
      : `at or below its low-stock line of ${stock(own, medicine.unit)}`;
  return {
    title: `Low stock: ${medicine.name} (${stock(left, medicine.unit)} left)`,
    detail:
      left === 0
        ? 'No stock left in batches that have not expired.'
        : `${stock(left, medicine.unit)} left in batches that have not expired, ${why}.`,
  };
}

/** The same in Spanish: one whole sentence for each reason. */
function lowWordsEs(medicine: MedicineRow, left: number, bought: number, own: number | null) {
  const unit = medicine.unit;
  return {
    title: sayEs('low.title', { medicine: medicine.name, left: stock(left, unit) }),
    detail:
      left === 0
        ? sayEs('low.none')
        : own === null
          ? sayEs('low.share', { left: stock(left, unit), bought: stock(bought, unit) })
          : sayEs('low.own', { left: stock(left, unit), line: stock(own, unit) }),
  };
}

/** The herd book's items (milk first, then the cabinet) and their counts. */
export function herdBookSections(
  facts: HerdBookFacts,
  ctx: BriefContext,
): { milk: Unranked[]; cabinet: Unranked[]; counts: HerdBookCounts } {
  const milk = milkSection(facts.milk, ctx);
  const cabinet = cabinetSection(facts.cabinet, ctx.now, ctx.language, ctx.timezone);
  const count = (items: Unranked[], kind: BriefItem['kind']) => items.filter((i) => i.kind === kind).length;
  return {
    milk,
    cabinet,
    counts: {
      milk_withheld: count(milk, 'milk_withheld'),
      milk_clear_today: count(milk, 'milk_clear'),
      batches_expiring: count(cabinet, 'batch_expiring'),
      medicines_low_stock: count(cabinet, 'medicine_low'),
    },
  };
}

/** The brief text's herd-book sentences ("Milk withheld: …", "Medicines: …"); empty when there is nothing. */
export function herdBookText(items: readonly BriefItem[], language: LanguageName = 'en'): string {
  const sentences: string[] = [];
  const of = (kind: BriefItem['kind']) => items.filter((i) => i.kind === kind).map((i) => i.title);
  const withheld = of('milk_withheld');
  if (withheld.length > 0) sentences.push(`${withheld.join('. ')}.`);
  const clear = of('milk_clear');
  if (clear.length > 0) sentences.push(`${clear.join('. ')}.`);
  const cabinet = [...of('batch_expiring'), ...of('medicine_low')];
  if (cabinet.length > 0) {
    sentences.push(
      language === 'en'
        ? `Medicine cabinet: ${cabinet.join('; ')}.`
        : formatMessage(language, BRIEF_ES['text.medicine_cabinet'], { list: cabinet.join('; ') }),
    );
  }
  return sentences.join(' ');
}
