/**
 * The morning brief: what needs attention on a farm now, ranked. Urgent alerts, then watch alerts
 * (oldest first within a severity), overdue tasks, tasks due today (farm time), houses with low feed
 * or water or climate off target, pop doors open after dusk, quiet devices, low batteries, paddocks
 * past their rest target, and last any info alerts.
 *
 * Everything is read from current state (active alerts, open tasks, devices, the latest value per
 * device and metric, paddocks), never by scanning readings, so the brief stays fast on large farms.
 */
import { dataVersion } from '../../db/data-version.ts';
import type { Db } from '../../db/schema.ts';
import type { LanguageName } from '../../domain/display-units.ts';
import { defaultHouseState, readHouseState } from '../../domain/house-state.ts';
import { type AlertRule, farmRules, type RuleName } from '../../domain/rules.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import { localDateText, localDayBounds } from '../../lib/local-time.ts';
import { toIso } from '../../lib/time.ts';
import { type Alert, toAlert } from '../alerts/service.ts';
import { type FarmRow, requireFarm, type Scope } from '../farms/access.ts';
import { latestReadings } from '../readings/service.ts';
import { grazingState, isOccupied } from '../stays/service.ts';
import { toTask } from '../tasks/repository.ts';
import type { Task } from '../tasks/schemas.ts';
import { mightBeQuiet, type QuietVerdict, quietVerdict, usualInterval } from './attention.ts';
import { breedingSection, readBreedingFacts } from './breeding-sections.ts';
import { herdBookSections, herdBookText, readHerdBookFacts } from './herd-book-sections.ts';
import { FarmMemo, RecentBuilds } from './memo.ts';
import {
  activeAlertKeys,
  activeAlerts,
  type BriefDeviceRow,
  type BriefPaddockRow,
  dueTasks,
  farmDevices,
  latestOfMetrics,
  newestMetrics,
  paddocksWithTarget,
  pastRest,
  type ReadingSpan,
  recentReadingSpans,
  spanKey,
} from './repository.ts';
import type { BriefCounts, BriefHouse, BriefItem } from './schemas.ts';
import {
  alertSection,
  type BriefContext,
  batterySection,
  DEVICE_BATTERY_METRIC,
  HOUSE_BATTERY_METRIC,
  houseSection,
  paddockSection,
  quietSection,
  taskSection,
  type Unranked,
} from './sections.ts';
import { readWeightFacts, weightSection } from './weight-sections.ts';
import { briefHeadline, briefText } from './wording.ts';

/** Longest lists in a brief; `counts` always has the totals. */
export const BRIEF_ALERT_LIMIT = 50;
export const BRIEF_TASK_LIMIT = 50;
export const BRIEF_ITEM_LIMIT = 100;

export interface BriefResult {
  farm_id: string;
  farm_name: string;
  timezone: string;
  generated_at: string;
  local_date: string;
  headline: string;
  text: string;
  alerts: Alert[];
  tasks: Task[];
  houses: BriefHouse[];
  items: BriefItem[];
  counts: BriefCounts;
}

/** What the usual intervals of some devices are worked out from (their newest metrics' recent spans). */
interface IntervalReads {
  newest: Map<string, string[]>;
  spans: Map<string, ReadingSpan>;
}

/**
 * The paddocks with a rest target that were ever grazed, oldest grazing first, by grazing's figures: when
 * each was last left (its `last_grazed_at`) and whether anything is in it (its `occupied_by`), the same
 * figures the paddock's own `rest_days` comes from.
 */
async function restedPaddocks(db: Db, farmId: string): Promise<BriefPaddockRow[]> {
  const rows = await paddocksWithTarget(db, farmId);
  const state = await grazingState(db, farmId, rows);
  const rested: BriefPaddockRow[] = [];
  for (const row of rows) {
    const figures = state.get(row.id);
    if (!figures || figures.last_grazed_at === null || row.rest_days_target === null) continue;
    rested.push({
      id: row.id,
      name: row.name,
      rest_days_target: Number(row.rest_days_target),
      last_grazed_at: figures.last_grazed_at,
      occupied: isOccupied(figures.occupied_by) ? 1 : 0,
    });
  }
  return rested.sort((a, b) => a.last_grazed_at - b.last_grazed_at || (a.id < b.id ? -1 : 1));
}

async function readIntervals(db: Db, deviceIds: readonly string[]): Promise<IntervalReads> {
  const newest = await newestMetrics(db, deviceIds);
  const spans = await recentReadingSpans(
    db,
    [...newest.entries()].flatMap(([deviceId, metrics]) => metrics.map((metric) => ({ deviceId, metric }))),
  );
  return { newest, spans };
}

/**
 * The brief's reads that do not depend on the time of day (paddocks come with their rest target, not yet
 * filtered by "now"); the quiet devices' intervals are read on demand, per set of candidates, because
 * which devices have been silent long enough to be candidates moves with the clock.
 */
async function readBriefFacts(db: Db, farm: FarmRow, today: { start: number; end: number }) {
  const [alerts, alertKeys, tasks, devices, batteries, paddocks, herdBook, weights] = await Promise.all([
    activeAlerts(db, farm.id, BRIEF_ALERT_LIMIT),
    activeAlertKeys(db, farm.id),
    dueTasks(db, farm.id, today, BRIEF_TASK_LIMIT),
    farmDevices(db, farm.id),
    latestOfMetrics(db, farm.id, [DEVICE_BATTERY_METRIC]),
    restedPaddocks(db, farm.id),
    readHerdBookFacts(db, farm.id, today),
    readWeightFacts(db, farm, today.start),
  ]);
  const houses = devices.filter((d) => d.type === 'house');
  const houseLatest = await latestReadings(
    db,
    houses.map((h) => h.id),
  );
  const intervals = new Map<string, Promise<IntervalReads>>();
  /** The interval reads of these candidates, read once per set while the facts are valid. */
  const intervalsOf = (deviceIds: readonly string[]): Promise<IntervalReads> => {
    const key = deviceIds.join(' ');
    let found = intervals.get(key);
    if (!found) {
      found = readIntervals(db, deviceIds);
      intervals.set(key, found);
      found.catch(() => intervals.delete(key));
    }
    return found;
  };
  return {
    alerts,
    alertKeys,
    tasks,
    devices,
    batteries,
    paddocks,
    herdBook,
    weights,
    houses,
    houseLatest,
    intervalsOf,
  };
}

type StoredFacts = Awaited<ReturnType<typeof readBriefFacts>>;
type BriefFacts = Omit<StoredFacts, 'paddocks'> & {
  paddocks: BriefPaddockRow[];
  quiet: Map<string, QuietVerdict>;
};

const memo = new FarmMemo<StoredFacts>();
const builds = new RecentBuilds<BriefResult>();

/** Quiet verdicts for the devices that have been silent a while (the rest cannot be quiet). */
async function quietVerdicts(facts: StoredFacts, now: number): Promise<Map<string, QuietVerdict>> {
  const candidates = facts.devices.filter((d) => mightBeQuiet(d, now));
  const out = new Map<string, QuietVerdict>();
  if (candidates.length === 0) return out;
  const reported = candidates.filter((d) => d.last_seen_at !== null).map((d) => d.id);
  const { newest, spans } = await facts.intervalsOf(reported);
  for (const device of candidates) {
    // A report often carries several metrics; the most frequent of them sets the device's pace.
    const intervals = (newest.get(device.id) ?? [])
      .map((metric) => usualInterval(spans.get(spanKey(device.id, metric))))
      .filter((i): i is number => i !== null);
    const interval = intervals.length > 0 ? Math.min(...intervals) : null;
    out.set(device.id, quietVerdict(device, interval, now));
  }
  return out;
}

/**
 * Everything the brief reads, as of `now`: from the farm's memo when nothing was committed since it was
 * read (memo.ts), else read afresh; inside a transaction always afresh.
 */
async function briefFacts(
  db: Db,
  farm: FarmRow,
  today: { start: number; end: number },
  version: string | null,
  now: number,
): Promise<BriefFacts> {
  const read = () => readBriefFacts(db, farm, today);
  const stored =
    version === null
      ? await read()
      : await memo.get(db, farm.id, `${version} ${today.start} ${today.end}`, read);
  return { ...stored, paddocks: pastRest(stored.paddocks, now), quiet: await quietVerdicts(stored, now) };
}

const HOUSE_STATE_SHAPE = defaultHouseState();

/**
 * The members of a stored house state that a house state has (those of the default state, at every level):
 * readHouseState keeps any others as they are, and a state may hold 64 KiB of anything, so every house's
 * extra members, kept while the brief is built, ran the server out of memory on a farm of many houses
 * (docs/data.md, "Memory"). The brief reads none of them.
 */
function knownMembers(stored: unknown, shape: unknown): unknown {
  if (!isPlainObject(shape) || !isPlainObject(stored)) return stored;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (Object.hasOwn(stored, key)) out[key] = knownMembers(stored[key], shape[key]);
  }
  return out;
}

/** Active alerts per subject, for each house's count. */
function alertsPerSubject(alertKeys: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const key of alertKeys) {
    const subject = key.slice(key.indexOf(' ') + 1);
    out.set(subject, (out.get(subject) ?? 0) + 1);
  }
  return out;
}

/** A device's battery: as reported on the device row, else its latest battery reading. */
function batteries(facts: BriefFacts): Array<{ row: BriefDeviceRow; battery: number | null }> {
  const reading = new Map(facts.batteries.map((b) => [b.device_id, b.value]));
  return facts.devices.map((row) => {
    const houseBattery =
      row.type === 'house' ? (facts.houseLatest[row.id]?.[HOUSE_BATTERY_METRIC]?.value ?? null) : null;
    return { row, battery: row.battery ?? reading.get(row.id) ?? houseBattery };
  });
}

/**
 * The morning brief of a farm the scope can see (404 otherwise), its sentences in `language` (English by
 * default: API keys and agents read the English, unchanged).
 */
export async function buildBrief(
  db: Db,
  scope: Scope,
  farmId: string,
  now: number = Date.now(),
  language: LanguageName = 'en',
): Promise<BriefResult> {
  // The version is read before anything else: facts read after it are at least as new as it says.
  const [version, farm] = await Promise.all([
    db.isTransaction ? null : dataVersion(db),
    requireFarm(db, scope, farmId),
  ]);
  // A brief built in one language is reused for that language only.
  const built = language === 'en' ? farm.id : `${farm.id} ${language}`;
  const recent = version === null ? undefined : builds.get(db, built, version, now);
  if (recent) return recent;
  const brief = await assembleBrief(db, farm, version, now, language);
  if (version !== null) builds.set(db, built, version, now, brief);
  return brief;
}

/** The brief of a farm from its facts (memoised or fresh), ranked and worded for `now`. */
async function assembleBrief(
  db: Db,
  farm: FarmRow,
  version: string | null,
  now: number,
  language: LanguageName,
): Promise<BriefResult> {
  const tz = farm.timezone;
  const today = localDayBounds(now, tz);
  const facts = await briefFacts(db, farm, today, version, now);
  const ctx: BriefContext = {
    now,
    timezone: tz,
    place: { timezone: tz, lat: farm.lat, lon: farm.lon },
    today,
    rules: new Map<RuleName, AlertRule>(farmRules(farm.settings).map((r) => [r.name, r])),
    alertKeys: facts.alertKeys,
    language,
  };

  const alertRecords = facts.alerts.rows.map(toAlert);
  const alerts = alertSection(alertRecords, language);
  const taskItems = taskSection(facts.tasks.rows, ctx);
  const perSubject = alertsPerSubject(facts.alertKeys);
  const houses = houseSection(
    facts.houses.map((row) => ({
      row,
      state: readHouseState(knownMembers(parseJson<unknown>(row.state, {}), HOUSE_STATE_SHAPE)),
      latest: facts.houseLatest[row.id] ?? {},
      quiet: facts.quiet.get(row.id) ?? null,
      activeAlerts: perSubject.get(row.id) ?? 0,
    })),
    ctx,
  );
  const quietItems = quietSection(facts.devices, facts.quiet, facts.alertKeys, language);
  const batteryItems = batterySection(batteries(facts), ctx);
  const paddockItems = paddockSection(facts.paddocks, now, language);
  const herdBook = herdBookSections(facts.herdBook, ctx);
  const weights = weightSection(facts.weights, now, language);
  const breedingItems = breedingSection(await readBreedingFacts(db, farm.id), ctx);

  const ranked: BriefItem[] = [
    ...alerts.items,
    ...taskItems,
    ...herdBook.milk,
    ...houses.items,
    ...houses.doorItems,
    ...quietItems,
    ...batteryItems,
    ...breedingItems,
    ...paddockItems,
    ...herdBook.cabinet,
    ...weights.gainItems,
    ...weights.groupItems,
    ...alerts.info,
  ]
    .slice(0, BRIEF_ITEM_LIMIT)
    .map((entry: Unranked, i) => ({ rank: i + 1, ...entry }));

  const counts: BriefCounts = {
    alerts_urgent: facts.alerts.counts.urgent,
    alerts_watch: facts.alerts.counts.watch,
    alerts_info: facts.alerts.counts.info,
    tasks_overdue: facts.tasks.overdue,
    tasks_due_today: facts.tasks.dueToday,
    houses_attention: houses.items.length,
    doors_open_after_dusk: houses.doorItems.length,
    devices_quiet: quietItems.length,
    devices_low_battery: batteryItems.length,
    paddocks_past_rest: paddockItems.length,
    ...herdBook.counts,
    animals_gain_low: weights.gainItems.length,
    groups_not_weighed: weights.groupItems.length,
  };
  const localDate = localDateText(now, tz);
  return {
    farm_id: farm.id,
    farm_name: farm.name,
    timezone: tz,
    generated_at: toIso(now),
    local_date: localDate,
    headline: briefHeadline(farm.name, ranked, counts, language),
    text: [
      briefText({
        farmName: farm.name,
        items: ranked,
        counts,
        houses: houses.houses,
        now,
        timezone: tz,
        language,
      }),
      herdBookText(ranked, language),
    ]
      .filter((part) => part !== '')
      .join(' '),
    alerts: alertRecords,
    tasks: facts.tasks.rows.map(toTask),
    houses: houses.houses,
    items: ranked,
    counts,
  };
}
