/**
 * Farm record tools: animals (find_animals, get_animal, add_animal), the farm event log (log_event),
 * groups, paddocks and tasks. Each calls the records services REST calls, with the key's scope.
 */
import { Type } from 'typebox';
import { MAX_PAGE_SIZE, parsePage } from '../../../db/pagination.ts';
import { TASK_STATUS } from '../../../domain/tasks.ts';
import { Nullable } from '../../../http/schemas.ts';
import { DAY_MS, parseIso } from '../../../lib/time.ts';
import { AnimalListQuery, AnimalSchema, CreateAnimalBody, LINEAGE_MEMBERS } from '../../animals/schemas.ts';
import {
  animalFilterValues,
  createAnimal,
  getAnimal,
  getAnimalHistory,
  listAnimals,
} from '../../animals/service.ts';
import { withBreeding } from '../../breeding/service.ts';
import { DeviceSchema } from '../../devices/schemas.ts';
import { listDevices } from '../../devices/service.ts';
import { CreateEventBody, EventSchema } from '../../events/schemas.ts';
import { createEvent } from '../../events/service.ts';
import { GroupListQuery, GroupSchema } from '../../groups/schemas.ts';
import { listGroups } from '../../groups/service.ts';
import { PaddockSchema } from '../../paddocks/schemas.ts';
import { listPaddocks } from '../../paddocks/service.ts';
import { CreateTaskBody, TaskSchema } from '../../tasks/schemas.ts';
import { completeTask, createTask, listTasks } from '../../tasks/service.ts';
import { herdBookEventHook } from '../../treatments/event-hook.ts';
import { defineTool, FarmIdArg, PageArgs, PageOutput, pageResult, READ_ONLY, resolveFarm } from '../tool.ts';

const { limit: _l, before: _b, ...animalFilters } = AnimalListQuery.properties;

/** How many values of each filter a no-match answer names. */
const VALUES_NAMED = 30;

export const findAnimalsTool = defineTool({
  name: 'find_animals',
  title: 'Find animals',
  description:
    "Finds a farm's animals: q searches name, tag, EID, breed; species, breed, status match any case; eid in any reader's form. No match: note lists the farm's values.",
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      ...animalFilters,
      species: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'Any case, e.g. cattle.' }),
      ),
      breed: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'Any case, e.g. Angus.' }),
      ),
      status: Type.Optional(
        Type.String({ minLength: 1, maxLength: 200, description: 'Any case, e.g. active.' }),
      ),
      ...PageArgs,
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    ...PageOutput(AnimalSchema).properties,
    note: Type.Optional(
      Type.String({ description: 'When a filter matched nothing: the values this farm has.' }),
    ),
  }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before, ...filters } = args;
    const farm = await resolveFarm(ctx, farm_id);
    const page = pageResult(
      'find_animals',
      await listAnimals(
        ctx.db,
        ctx.scope,
        farm.id,
        { ...filters, anyCase: true },
        parsePage({ limit, before }),
      ),
    );
    const named = (['species', 'breed', 'status'] as const).filter((f) => filters[f] !== undefined);
    if (page.data.length > 0 || before !== undefined || named.length === 0) return page;
    // Nothing matched a value filter: say what the farm has, so the next call can use a real value.
    const values = await animalFilterValues(ctx.db, ctx.scope, farm.id, VALUES_NAMED);
    const has = named.map((f) => {
      const list = values[f];
      return `${f} ${list.length > 0 ? `is one of ${list.join(', ')}${list.length === VALUES_NAMED ? ', …' : ''}` : 'is never set'}`;
    });
    return {
      ...page,
      note: `No animals on ${farm.name} match ${named.map((f) => `${f} "${filters[f]}"`).join(' and ')}. On this farm, ${has.join('; ')}.`,
    };
  },
});

export const getAnimalTool = defineTool({
  name: 'get_animal',
  title: 'Get animal',
  description:
    'One animal: recent history (treatments, weights, moves…), withdrawal (when meat, milk, eggs are clear and why), breeding and parents, trackers (get_readings: body temperature, activity).',
  input: Type.Object(
    {
      animal_id: Type.String({ minLength: 1, description: 'The animal (an id from find_animals).' }),
      history_limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_PAGE_SIZE,
          description: `How many history events, 1 to ${MAX_PAGE_SIZE} (default 20).`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: Type.Object({
    animal: AnimalSchema,
    history: Type.Array(EventSchema, { description: 'Farm events about the animal, newest first.' }),
    trackers: Type.Array(DeviceSchema, { description: 'Devices attached to the animal.' }),
  }),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const animal = await getAnimal(ctx.db, ctx.scope, args.animal_id);
    const [history, trackers] = await Promise.all([
      getAnimalHistory(ctx.db, ctx.scope, animal.id, args.history_limit ?? 20),
      listDevices(ctx.db, ctx.scope, animal.farm_id, { animal_id: animal.id }, { limit: 100, before: null }),
    ]);
    return { animal, history, trackers: trackers.data };
  },
});

function withoutLineage<T extends Record<string, unknown>>(
  properties: T,
): Omit<T, 'dam_id' | 'sire_id' | 'sire_name' | 'sire_registration'> {
  return Object.fromEntries(Object.entries(properties).filter(([k]) => !LINEAGE_MEMBERS.includes(k))) as Omit<
    T,
    'dam_id' | 'sire_id' | 'sire_name' | 'sire_registration'
  >;
}

export const addAnimalTool = defineTool({
  name: 'add_animal',
  title: 'Add animal',
  description:
    'Adds an animal to a farm (species required). Each call adds one: retry with the same idempotency_key, never blindly.',
  // Without dam and sire: within tools/list's budget; a birth logged with offspring links them (log_event).
  input: Type.Object(
    { farm_id: FarmIdArg, ...withoutLineage(CreateAnimalBody.properties) },
    { additionalProperties: false },
  ),
  // The new animal has no parents or breeding records yet: those members are left out of the budgeted schema.
  output: Type.Omit(AnimalSchema, ['dam_id', 'sire_id', 'sire_name', 'sire_registration', 'breeding']),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createAnimal(ctx.db, ctx.scope, farm.id, input);
  },
});

// An agent may not override the withdrawal check: a sale inside a withdrawal is a person's call, made over the
// API with override_reason (docs/records.md).
const { override_reason: _override, ...logEventArgs } = CreateEventBody.properties;

export const logEventTool = defineTool({
  name: 'log_event',
  title: 'Log farm event',
  description:
    'Logs a farm event (treatment, weight, birth, move, sale, death, note) about an animal, group, paddock or device (subject_id), details in data. A move with data.to_paddock_id (or null) moves the animal or group there at `at`, late moves in order; the paddock left starts resting. A sale or slaughter inside a meat withdrawal is refused; data with medicine_id and dose also records a treatment.',
  input: Type.Object({ farm_id: FarmIdArg, ...logEventArgs }, { additionalProperties: false }),
  output: EventSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createEvent(ctx.db, ctx.scope, farm.id, input, Date.now(), withBreeding(herdBookEventHook));
  },
});

const { limit: _gl, before: _gb, ...groupFilters } = GroupListQuery.properties;

export const listGroupsTool = defineTool({
  name: 'list_groups',
  title: 'List groups',
  description:
    "A farm's groups of animals (herds, flocks, pens, litters) with species, head count and paddock.",
  input: Type.Object({ farm_id: FarmIdArg, ...groupFilters, ...PageArgs }, { additionalProperties: false }),
  output: PageOutput(GroupSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before, ...filters } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'list_groups',
      await listGroups(ctx.db, ctx.scope, farm.id, filters, parsePage({ limit, before })),
    );
  },
});

const PaddockItem = Type.Object({
  ...PaddockSchema.properties,
  days_since_grazed: Nullable(
    Type.Number({
      description: 'Whole days since last_grazed_at (null when never grazed); compare with rest_days_target.',
    }),
  ),
});

export const listPaddocksTool = defineTool({
  name: 'list_paddocks',
  title: 'List paddocks',
  description:
    "A farm's paddocks with occupied_by, rest_days (days since last left; null while occupied) and rest_days_target: which are rested enough to graze next.",
  input: Type.Object({ farm_id: FarmIdArg, ...PageArgs }, { additionalProperties: false }),
  output: PageOutput(PaddockItem),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const farm = await resolveFarm(ctx, args.farm_id);
    const page = await listPaddocks(ctx.db, ctx.scope, farm.id, parsePage(args));
    const now = Date.now();
    const data = page.data.map((p) => {
      const grazed = p.last_grazed_at === null ? null : parseIso(p.last_grazed_at);
      return {
        ...p,
        days_since_grazed: grazed === null ? null : Math.max(0, Math.floor((now - grazed) / DAY_MS)),
      };
    });
    return pageResult('list_paddocks', { ...page, data });
  },
});

export const listTasksTool = defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  description:
    "A farm's crew tasks; open ones by default (status done, all, or an exact status). Filter by assignee or subject_id.",
  input: Type.Object(
    {
      farm_id: FarmIdArg,
      status: Type.Optional(
        Type.String({
          minLength: 1,
          description: 'open (default), done, another status, or all for every task.',
        }),
      ),
      assignee: Type.Optional(Type.String({ minLength: 1, description: 'Exact assignee.' })),
      subject_id: Type.Optional(Type.String({ minLength: 1, description: 'Tasks about this record.' })),
      ...PageArgs,
    },
    { additionalProperties: false },
  ),
  output: PageOutput(TaskSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before, status = TASK_STATUS.open, ...filters } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'list_tasks',
      await listTasks(
        ctx.db,
        ctx.scope,
        farm.id,
        { ...filters, ...(status === 'all' ? {} : { status }) },
        parsePage({ limit, before }),
      ),
    );
  },
});

export const addTaskTool = defineTool({
  name: 'add_task',
  title: 'Add task',
  description:
    'Creates a crew task (title required; a due_at of a date alone, e.g. 2026-11-28, is that whole farm day). Each call adds one: retry with the same idempotency_key, never blindly.',
  input: Type.Object({ farm_id: FarmIdArg, ...CreateTaskBody.properties }, { additionalProperties: false }),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createTask(ctx.db, ctx.scope, farm.id, input);
  },
});

export const completeTaskTool = defineTool({
  name: 'complete_task',
  title: 'Complete task',
  description: 'Marks a task done. Repeating it is safe.',
  input: Type.Object(
    { task_id: Type.String({ minLength: 1, description: 'The task (an id from list_tasks).' }) },
    { additionalProperties: false },
  ),
  output: TaskSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, args) {
    return completeTask(ctx.db, ctx.scope, args.task_id);
  },
});
