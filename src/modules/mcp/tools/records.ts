/**
 * Farm record tools: animals (find_animals, get_animal, add_animal), the farm event log (log_event),
 * groups, paddocks and tasks. Each calls the records services REST calls, with the key's scope.
 */
import { Type } from 'typebox';
import { MAX_PAGE_SIZE, parsePage } from '../../../db/pagination.ts';
import { TASK_STATUS } from '../../../domain/tasks.ts';
import { Nullable } from '../../../http/schemas.ts';
import { DAY_MS, parseIso } from '../../../lib/time.ts';
import { AnimalListQuery, AnimalSchema, CreateAnimalBody } from '../../animals/schemas.ts';
import { createAnimal, getAnimal, getAnimalHistory, listAnimals } from '../../animals/service.ts';
import { DeviceSchema } from '../../devices/schemas.ts';
import { listDevices } from '../../devices/service.ts';
import { CreateEventBody, EventSchema } from '../../events/schemas.ts';
import { createEvent } from '../../events/service.ts';
import { GROUP_KINDS, GroupListQuery, GroupSchema } from '../../groups/schemas.ts';
import { listGroups } from '../../groups/service.ts';
import { PaddockSchema } from '../../paddocks/schemas.ts';
import { listPaddocks } from '../../paddocks/service.ts';
import { CreateTaskBody, TaskSchema } from '../../tasks/schemas.ts';
import { completeTask, createTask, listTasks } from '../../tasks/service.ts';
import { defineTool, FarmIdArg, PageArgs, PageOutput, pageResult, READ_ONLY, resolveFarm } from '../tool.ts';

const PAGING_NOTE =
  'Newest first; when has_more is true, call again with before set to next_before for the next page.';

const { limit: _l, before: _b, ...animalFilters } = AnimalListQuery.properties;

export const findAnimalsTool = defineTool({
  name: 'find_animals',
  title: 'Find animals',
  description: `Finds animals on a farm. Search with q (case-insensitive part of the name, visual tag, EID or breed), or match exactly on tag or eid (electronic id); filter by species (e.g. cattle, sheep, goat, pig), group_id (see list_groups), paddock_id (see list_paddocks) or status (active, sold, dead, culled, missing). Filters combine with AND. ${PAGING_NOTE} Use get_animal for one animal's history and trackers.`,
  input: Type.Object({ farm_id: FarmIdArg, ...animalFilters, ...PageArgs }, { additionalProperties: false }),
  output: PageOutput(AnimalSchema),
  annotations: READ_ONLY,
  async run(ctx, args) {
    const { farm_id, limit, before, ...filters } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return pageResult(
      'find_animals',
      await listAnimals(ctx.db, ctx.scope, farm.id, filters, parsePage({ limit, before })),
    );
  },
});

export const getAnimalTool = defineTool({
  name: 'get_animal',
  title: 'Get animal',
  description:
    'One animal with its recent history and its trackers. history is the farm events about the animal, newest first: treatments, weights (data.kg), moves between groups and paddocks (data.from / data.to), births, notes… trackers are the devices attached to it (ear tags, boluses, bands) with battery and last report; use get_readings with a tracker id for its body temperature, rumination or activity over time.',
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

export const addAnimalTool = defineTool({
  name: 'add_animal',
  title: 'Add animal',
  description:
    'Adds one animal to a farm and returns it. species is required (e.g. cattle, sheep, goat, pig, chicken); the rest is optional: name, tag (visual ear tag), eid (electronic id, unique among the account’s animals: a duplicate is refused and names the animal that has it), sex, breed, birth_date (ISO 8601 date), group_id and paddock_id (must be on the same farm; see list_groups, list_paddocks), status (default active), notes, and fields (any custom key/values). Each call adds a new animal, so do not repeat a call that succeeded.',
  input: Type.Object({ farm_id: FarmIdArg, ...CreateAnimalBody.properties }, { additionalProperties: false }),
  output: AnimalSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createAnimal(ctx.db, ctx.scope, farm.id, input);
  },
});

export const logEventTool = defineTool({
  name: 'log_event',
  title: 'Log farm event',
  description:
    'Writes one entry in the farm’s event log and returns it. type says what happened: treatment, weight, birth, move, sale, death, purchase, note, or any other word. Attach it to what it is about with subject_id (an animal ani_…, group grp_…, paddock pad_… or device dev_… on the same farm; subject_type is inferred from the id, or give it). data holds the details as key/values, e.g. a treatment {"product": "Ivomec", "dose_ml": 5, "withdrawal_days": 35}, a weight {"kg": 412}, a sale {"buyer": "…", "price": 1450}, a note {"text": "…"}. at is when it happened (ISO 8601; default now). Logging a move does not move the animal; its group_id and paddock_id stay as they are.',
  input: Type.Object({ farm_id: FarmIdArg, ...CreateEventBody.properties }, { additionalProperties: false }),
  output: EventSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, args) {
    const { farm_id, ...input } = args;
    const farm = await resolveFarm(ctx, farm_id);
    return createEvent(ctx.db, ctx.scope, farm.id, input);
  },
});

const { limit: _gl, before: _gb, ...groupFilters } = GroupListQuery.properties;

export const listGroupsTool = defineTool({
  name: 'list_groups',
  title: 'List groups',
  description: `Lists the groups of animals on a farm: herds, flocks, pens and litters, each with species, kind (${GROUP_KINDS.join(', ')}), head_count, hatch_date and the paddock it is in. Filter by species, kind or paddock_id (exact). ${PAGING_NOTE}`,
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
  description: `Lists a farm's paddocks with acres, rest_days_target (days of rest wanted between grazings), last_grazed_at and days_since_grazed, so you can tell which paddocks are rested enough to graze next (days_since_grazed >= rest_days_target). ${PAGING_NOTE}`,
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
  description: `Lists a farm's tasks for the crew. By default only open tasks; status "done" lists finished ones, any other status matches exactly (e.g. in_progress), and "all" lists every task. Filter by assignee (exact) or subject_id (tasks about an animal, group, paddock, device or alert). ${PAGING_NOTE}`,
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
    'Creates a task for the crew and returns it. title is required (what to do, e.g. "Check water trough in North paddock"); optional notes, due_at (ISO 8601; a date alone, e.g. 2026-11-28, means that whole day on the farm), assignee (free text, who should do it), status (default open), subject_id (the animal, group, paddock, device or alert it is about, on the same farm) and alert_id (an alert it answers; see list_alerts). Each call adds a new task, so do not repeat a call that succeeded.',
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
  description:
    'Marks a task done (status done, done_at now) and returns it. A task already done is returned unchanged, so repeating the call is safe. Find task ids with list_tasks.',
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
