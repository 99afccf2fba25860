/**
 * From an EADS interview's SCR to a scheduling problem, and from the problem to a MiniZinc model.
 *
 * Pure (no I/O, no clock): the workflows, the activities, the tests and the bench all use it.
 *
 * Covered: flow shops (every job passes the firm's steps in order) and job shops (each job
 * follows one of the firm's routings), renewable resources with quantities (cumulative use),
 * release times, due dates (soft: total tardiness; hard: deadlines), objectives makespan or
 * total tardiness. Not covered yet: timetabling (teachers, rooms, periods), set-up times and
 * changeover costs (the SCR has no set-up data, so MINIMIZE-CHANGEOVERS is solved as makespan
 * and the changeovers are counted afterwards), shift calendars (resources are available around
 * the clock), alternative resources (a step that names two resources uses both), and per-unit
 * durations (an order of any quantity takes the step durations the firm gave per job/batch).
 */
import type { JsonObject } from './eads-structure';
import { normalizeName } from './eads-structure';
import { FailureType } from '../contracts/failures';

export const TIME_UNITS = { minutes: 1, hours: 60, days: 1440, weeks: 10080 } as const;
export type TimeUnit = keyof typeof TIME_UNITS;

export type ShopKind = 'flow-shop' | 'job-shop';
export type SolvedObjective = 'makespan' | 'total-tardiness';

export interface ProblemResource {
  /** The firm's own name ("fermenter"). */
  name: string;
  quantity: number;
  type?: string;
  /** Why the quantity is an assumption, when it is one. */
  assumed?: string;
}

export interface ProblemTask {
  /** The firm's step (process-id), e.g. "mash". */
  step: string;
  /** In the problem's time unit. */
  duration: number;
  uses: Array<{ resource: string; units: number }>;
}

export interface ProblemJob {
  id: string;
  order: string;
  product: string;
  quantity: number;
  /** The routing (job shop) or the firm's process (flow shop) the job follows. */
  route: string;
  release: number;
  due?: number;
  tasks: ProblemTask[];
}

export interface ProblemConflict {
  kind: 'step-needs-more-than-available' | 'due-before-minimum-processing' | 'no-solution-within-deadlines';
  detail: string;
  job?: string;
  step?: string;
  resource?: string;
}

export interface ScheduleProblem {
  kind: ShopKind;
  firm: string | null;
  process: string | null;
  timeUnit: TimeUnit;
  resources: ProblemResource[];
  jobs: ProblemJob[];
  objective: { firm: string | null; solved: SolvedObjective; note?: string };
  dueDates: 'soft' | 'hard';
  /** A trivial upper bound on any end time (releases plus all work done one after another). */
  horizon: number;
  /** Where the jobs came from. */
  jobsSource: 'scr' | 'orders' | 'one-per-product';
  /** Assumptions made to fill gaps in the SCR, in plain words. */
  notes: string[];
}

export interface OrderInput {
  id?: string;
  product: string;
  quantity?: number;
  due?: { value: number; units: TimeUnit };
  release?: { value: number; units: TimeUnit };
}

/** Errors quote the SCR only in short excerpts. */
const short = (v: string, max = 60) => (v.length > max ? `${v.slice(0, max - 1)}…` : v).replace(/[\r\n]+/g, ' ');
const shortList = (items: string[]) =>
  `${items
    .slice(0, 8)
    .map((i) => short(i, 40))
    .join(', ')}${items.length > 8 ? `, … (${items.length})` : ''}`;

export class ScheduleModelError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = FailureType.ScheduleModelError;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the SCR.

const UNIT_WORDS: Array<[RegExp, TimeUnit]> = [
  [/^(m|min|mins|minute|minutes)$/, 'minutes'],
  [/^(h|hr|hrs|hour|hours)$/, 'hours'],
  [/^(d|day|days)$/, 'days'],
  [/^(w|wk|wks|week|weeks)$/, 'weeks'],
];

export function timeUnitOf(units: string): TimeUnit | undefined {
  const u = units.trim().toLowerCase();
  return UNIT_WORDS.find(([re]) => re.test(u))?.[1];
}

/** A duration `{units, value-string}` in minutes; "1.5" and "about 2" read, "2-3" takes the longer. */
export function durationMinutes(value: unknown): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const unit = typeof v.units === 'string' ? timeUnitOf(v.units) : undefined;
  const text =
    typeof v['value-string'] === 'string' ? v['value-string'] : typeof v.value === 'number' ? String(v.value) : '';
  const numbers = [...text.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  if (!unit || numbers.length === 0) return undefined;
  // reduce, not Math.max(...numbers): a long value-string must not become that many arguments.
  return Math.round(numbers.reduce((a, b) => Math.max(a, b)) * TIME_UNITS[unit]);
}

function rows(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r))
    : [];
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const list = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim())
    : text(v)
      ? [text(v)!]
      : [];

/** Counts said in words, each at its own value's index ("two" is 2). */
export const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];
/** "two" → "2": quantities said in words. */
function numberWord(text: string): string | undefined {
  const words = text.toLowerCase().split(/[^a-z]+/);
  const i = NUMBER_WORDS.findIndex((w) => words.includes(w));
  return i >= 0 ? String(i) : undefined;
}

const sameName = (a: string, b: string) => {
  const x = normalizeName(a);
  const y = normalizeName(b);
  return x === y || x.includes(y) || y.includes(x);
};

export function shopKindOf(scr: JsonObject): ShopKind | undefined {
  const type = text(scr['principal-problem-type']);
  if (type === 'FLOW-SHOP-SCHEDULING-PROBLEM') return 'flow-shop';
  if (type === 'JOB-SHOP-SCHEDULING-PROBLEM') return 'job-shop';
  if (rows(scr.routings).length && rows(scr['unit-processes']).length) return 'job-shop';
  if (rows(scr.subprocesses).length) return 'flow-shop';
  return undefined;
}

/** Order rows the data EADS may carry: any table whose rows name a product and a quantity or a due date. */
export function ordersFromScr(scr: JsonObject): OrderInput[] {
  const table = ordersTable(scr);
  if (!table) return [];
  const orders: OrderInput[] = [];
  for (const [i, row] of table.rows.entries()) {
    const product = orderProduct(row);
    if (!product) continue;
    const quantity = Number(String(row.quantity ?? '1').match(/\d+/)?.[0] ?? 1);
    const dueMinutes = durationMinutes(row['due-in'] ?? row.due);
    orders.push({
      id: text(row['order-id']) ?? text(row['order-number']) ?? `order-${i + 1}`,
      product,
      quantity,
      ...(dueMinutes !== undefined ? { due: { value: dueMinutes, units: 'minutes' as const } } : {}),
    });
  }
  return orders;
}

const orderProduct = (row: Record<string, unknown>): string | undefined =>
  text(row.product) ?? text(row['product-id']) ?? text(row.part) ?? text(row['routing-id']);

/** The SCR's order table: the first field named like "order" whose rows name a product. */
function ordersTable(scr: JsonObject): { field: string; rows: Array<Record<string, unknown>> } | undefined {
  for (const [field, value] of Object.entries(scr)) {
    if (!field.includes('order')) continue;
    const table = rows(value);
    if (table.some((row) => orderProduct(row) !== undefined)) return { field, rows: table };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// What an SCR implies, bounded before any of it is built.

/**
 * How large a scheduling problem may grow. An SCR is small text that multiplies: every order
 * becomes a job with every step of its route, each step a row of the MiniZinc `use` matrix with
 * a column per resource, and all of it travels in the solver activity's input, the artifacts
 * activity's input and the workflow's result (Temporal refuses payloads over 2 MB, and the
 * workflow task that tries is retried forever). 300 orders × 200 steps made a 3.96 MB problem.
 * At these limits the largest problem is a few hundred KB and is built in well under a second.
 */
export const SCHEDULE_LIMITS = {
  /** Flow-shop `subprocesses` or job-shop `unit-processes`. */
  steps: 200,
  routings: 100,
  /** All routings' steps together. */
  routingSteps: 2_000,
  resourcePools: 100,
  /** Resources one step names. */
  resourcesPerStep: 10,
  /** Order rows in the SCR (the input's `orders` have the same cap in their schema). */
  orders: 500,
  /** Products in a flow-shop SCR's `outputs` (one job each when there are no orders). */
  outputs: 500,
  /** A step's, routing's or resource's name: each is repeated per task. */
  nameChars: 80,
  /** An order's product (as in the input's orders): repeated per job. */
  productChars: 120,
  /** One step's duration, in minutes (about 19 years). */
  durationMinutes: 10_000_000,
  /** Jobs × the longest route: the tasks the solver schedules. */
  tasks: 1_000,
  /** Each task's resources, counted over all tasks: each use names its resource in every payload. */
  uses: 2_000,
  /** Tasks × resources: the cells of the MiniZinc `use` matrix. */
  useCells: 20_000,
} as const;

export interface ScheduleWorkIssue {
  /** The field, from the SCR's root (e.g. ["subprocesses", 3, "process-id"]); [] for the SCR as a whole. */
  path: Array<string | number>;
  message: string;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Whether building a schedule from this (merged) SCR and `inputOrders` orders stays within
 * SCHEDULE_LIMITS: the sizes of its tables and names, and the products of counts they imply
 * (orders × steps, tasks × resources). Linear in the SCR; the first few problems, each naming
 * its field. The input schema runs it, so an SCR that would blow up is refused with the input.
 */
export function scheduleWorkIssues(scr: JsonObject, inputOrders = 0): ScheduleWorkIssue[] {
  const issues: ScheduleWorkIssue[] = [];
  const kind = shopKindOf(scr);
  if (!kind) return issues; // Nothing will be built: buildScheduleProblem says why.
  const L = SCHEDULE_LIMITS;
  const tooMany = (path: ScheduleWorkIssue['path'], n: number, max: number, what: string) => {
    if (n > max) issues.push({ path, message: `has ${count(n)} ${what}; at most ${count(max)}` });
  };
  const longName = (path: ScheduleWorkIssue['path'], v: unknown, max: number = L.nameChars) => {
    if (typeof v === 'string' && v.trim().length > max)
      issues.push({ path, message: `is ${count(v.trim().length)} characters long; at most ${max}` });
  };
  const resourceNames = new Set<string>();
  const stepRows = (field: 'subprocesses' | 'unit-processes') => {
    const table = rows(scr[field]);
    tooMany([field], table.length, L.steps, 'steps');
    table.slice(0, L.steps).forEach((row, i) => {
      longName([field, i, 'process-id'], row['process-id']);
      const named = list(row.resources);
      tooMany([field, i, 'resources'], named.length, L.resourcesPerStep, 'resources');
      for (const r of named.slice(0, L.resourcesPerStep)) {
        longName([field, i, 'resources'], r);
        resourceNames.add(r);
      }
      const minutes = durationMinutes(row.duration);
      if (minutes !== undefined && !(minutes <= L.durationMinutes))
        issues.push({ path: [field, i, 'duration'], message: `is longer than ${count(L.durationMinutes)} minutes` });
    });
    return table.length;
  };

  // The longest route, in steps and in resource uses (a job follows one route).
  let longestRoute: number;
  let mostUses: number;
  let routeCount: number;
  let stepsField: string;
  if (kind === 'flow-shop') {
    longestRoute = stepRows('subprocesses');
    mostUses = rows(scr.subprocesses).reduce((n, row) => n + list(row.resources).length, 0);
    stepsField = 'subprocesses';
    routeCount = 1;
  } else {
    stepRows('unit-processes');
    // A unit process's resources by its id (a routing may also name it loosely: then counted as the most any step has).
    const usesById = new Map<string, number>();
    let mostPerStep = 0;
    for (const row of rows(scr['unit-processes'])) {
      const n = list(row.resources).length;
      mostPerStep = Math.max(mostPerStep, n);
      const id = text(row['process-id']);
      if (id !== undefined) usesById.set(id, n);
    }
    const routings = rows(scr.routings);
    tooMany(['routings'], routings.length, L.routings, 'routings');
    let total = 0;
    longestRoute = 0;
    mostUses = 0;
    routings.slice(0, L.routings).forEach((r, i) => {
      longName(['routings', i, 'routing-id'], r['routing-id']);
      const steps = list(r.steps);
      total += steps.length;
      longestRoute = Math.max(longestRoute, steps.length);
      mostUses = Math.max(
        mostUses,
        steps.reduce((n, step) => n + (usesById.get(step) ?? mostPerStep), 0),
      );
      const long = steps.find((step) => step.length > L.nameChars);
      if (long !== undefined) longName(['routings', i, 'steps'], long);
    });
    tooMany(['routings'], total, L.routingSteps, 'steps in all');
    stepsField = 'routings.steps';
    routeCount = routings.length;
  }
  const pools = rows(scr['resource-pools']);
  tooMany(['resource-pools'], pools.length, L.resourcePools, 'resource pools');
  pools.slice(0, L.resourcePools).forEach((p, i) => {
    longName(['resource-pools', i, 'resource-id'], p['resource-id']);
    if (typeof p['resource-id'] === 'string') resourceNames.add(p['resource-id']);
  });

  // The jobs, as buildScheduleProblem takes them: the SCR's orders, else the input's, else one per product.
  const scrOrders = ordersTable(scr);
  let jobs: number;
  let jobsFrom: ScheduleWorkIssue['path'];
  if (scrOrders) {
    tooMany([scrOrders.field], scrOrders.rows.length, L.orders, 'orders');
    scrOrders.rows
      .slice(0, L.orders)
      .forEach((row, i) => longName([scrOrders.field, i, 'product'], orderProduct(row), L.productChars));
    jobs = scrOrders.rows.length;
    jobsFrom = [scrOrders.field];
  } else if (inputOrders > 0) {
    jobs = inputOrders;
    jobsFrom = ['(input orders)'];
  } else if (kind === 'flow-shop' && list(scr.outputs).length) {
    const outputs = list(scr.outputs);
    tooMany(['outputs'], outputs.length, L.outputs, 'products');
    jobs = outputs.length;
    jobsFrom = ['outputs'];
  } else {
    jobs = routeCount;
    jobsFrom = [kind === 'flow-shop' ? 'subprocesses' : 'routings'];
  }
  if (issues.length) return issues.slice(0, 5);

  const tasks = jobs * longestRoute;
  if (tasks > L.tasks) {
    issues.push({
      path: jobsFrom[0] === '(input orders)' ? [] : jobsFrom,
      message:
        `${count(jobs)} job(s) × up to ${count(longestRoute)} step(s) each (${stepsField}) = ${count(tasks)} tasks to ` +
        `schedule; at most ${count(L.tasks)}: fewer orders or steps`,
    });
  } else if (jobs * mostUses > L.uses) {
    issues.push({
      path: jobsFrom[0] === '(input orders)' ? [] : jobsFrom,
      message:
        `${count(jobs)} job(s) × up to ${count(mostUses)} resource use(s) each (the resources of ${stepsField}) = ` +
        `${count(jobs * mostUses)} uses to schedule; at most ${count(L.uses)}`,
    });
  } else if (tasks * resourceNames.size > L.useCells) {
    issues.push({
      path: ['resource-pools'],
      message:
        `${count(tasks)} tasks × ${count(resourceNames.size)} resources = ${count(tasks * resourceNames.size)} ` +
        `cells in the model's resource-use table; at most ${count(L.useCells)}`,
    });
  }
  return issues;
}

interface Step {
  step: string;
  minutes: number;
  resources: string[];
}

function stepOf(row: Record<string, unknown>, field: string, index: number): Step {
  const step = text(row['process-id']) ?? `step-${index + 1}`;
  const minutes = durationMinutes(row.duration);
  if (minutes === undefined || minutes <= 0) {
    throw new ScheduleModelError(
      `${field}[${index}] ("${short(step)}") has no usable duration (${JSON.stringify(row.duration ?? null).slice(0, 80)})`,
      `${field}.duration`,
    );
  }
  return { step, minutes, resources: list(row.resources) };
}

/** The largest unit in which every duration is a whole number: small integers for the solver. */
export function chooseTimeUnit(minutes: number[]): TimeUnit {
  for (const unit of ['weeks', 'days', 'hours'] as const)
    if (minutes.every((m) => m % TIME_UNITS[unit] === 0)) return unit;
  return 'minutes';
}

const OBJECTIVES: Record<string, { solved: SolvedObjective; note?: string }> = {
  'MEET-DUE-DATES': { solved: 'total-tardiness' },
  'MINIMIZE-MAKESPAN': { solved: 'makespan' },
  'MAXIMIZE-THROUGHPUT': {
    solved: 'makespan',
    note: 'throughput is maximised by finishing the given jobs as early as possible (makespan)',
  },
  'MINIMIZE-CHANGEOVERS': {
    solved: 'makespan',
    note:
      'the SCR has no set-up times, so changeovers are not optimised: the schedule ' +
      'minimises makespan and counts changeovers per resource',
  },
  'BALANCE-WORKLOAD': {
    solved: 'makespan',
    note: 'workload balance is not modelled yet: the schedule minimises makespan',
  },
  'SATISFY-PREFERENCES': {
    solved: 'makespan',
    note: 'preferences are not modelled yet: the schedule minimises makespan',
  },
};

export interface BuildProblemOptions {
  orders?: OrderInput[];
  /** Hard due dates are deadlines (infeasible when missed); soft ones are minimised lateness. */
  dueDates?: 'soft' | 'hard';
  /** Overrides the firm's objective. */
  objective?: SolvedObjective;
  firm?: string | null;
}

/** The SCR (merged) plus orders, as a scheduling problem. Throws ScheduleModelError naming the missing field. */
export function buildScheduleProblem(scr: JsonObject, options: BuildProblemOptions = {}): ScheduleProblem {
  const kind = shopKindOf(scr);
  if (!kind) {
    const type = text(scr['principal-problem-type']);
    throw new ScheduleModelError(
      type
        ? `only flow-shop and job-shop problems can be scheduled yet; this SCR is ${short(type)}`
        : 'the SCR names no problem type and has neither flow-shop steps nor job-shop routings',
      'principal-problem-type',
    );
  }
  const tooMuch = scheduleWorkIssues(scr, options.orders?.length ?? 0)[0];
  if (tooMuch) {
    const field = tooMuch.path.filter((p) => typeof p === 'string').join('.') || 'scr';
    throw new ScheduleModelError(`${field}: ${tooMuch.message}`, field);
  }
  const notes: string[] = [];

  // Routes: name -> steps in order.
  const routes = new Map<string, Step[]>();
  let descriptions = new Map<string, string>();
  if (kind === 'flow-shop') {
    const table = rows(scr.subprocesses);
    if (!table.length) throw new ScheduleModelError('the flow-shop SCR has no steps ("subprocesses")', 'subprocesses');
    routes.set(
      text(scr['process-id']) ?? 'process',
      table.map((r, i) => stepOf(r, 'subprocesses', i)),
    );
  } else {
    const units = rows(scr['unit-processes']);
    if (!units.length)
      throw new ScheduleModelError('the job-shop SCR has no unit processes ("unit-processes")', 'unit-processes');
    const byId = new Map(
      units.map((r, i) => [text(r['process-id']) ?? `step-${i + 1}`, stepOf(r, 'unit-processes', i)]),
    );
    const routings = rows(scr.routings);
    if (!routings.length) throw new ScheduleModelError('the job-shop SCR has no routings', 'routings');
    // A step named again by another routing is looked up once.
    const named = new Map<string, Step | undefined>();
    const stepNamed = (s: string): Step | undefined => {
      if (!named.has(s)) named.set(s, byId.get(s) ?? [...byId.values()].find((u) => sameName(u.step, s)));
      return named.get(s);
    };
    for (const [i, r] of routings.entries()) {
      const id = text(r['routing-id']) ?? `routing-${i + 1}`;
      const steps = list(r.steps).map((s) => {
        const found = stepNamed(s);
        if (!found)
          throw new ScheduleModelError(
            `routing "${short(id)}" names step "${short(s)}", which is not among the unit processes (${shortList([...byId.keys()])})`,
            'routings.steps',
          );
        return found;
      });
      if (!steps.length) throw new ScheduleModelError(`routing "${short(id)}" has no steps`, 'routings.steps');
      routes.set(id, steps);
    }
    descriptions = new Map(
      routings.map((r, i) => [text(r['routing-id']) ?? `routing-${i + 1}`, text(r['typical-jobs']) ?? '']),
    );
  }

  // Resources: the pools, plus any a step names that the pools lack (assumed one).
  const pools = rows(scr['resource-pools']);
  const resources: ProblemResource[] = [];
  // Each name is resolved once: every task of every job names its step's resources again.
  const resolved = new Map<string, ProblemResource>();
  const resourceFor = (name: string): ProblemResource => {
    const known = resolved.get(name) ?? resources.find((r) => sameName(r.name, name));
    if (known) {
      resolved.set(name, known);
      return known;
    }
    // The pool of the same name, else one whose name contains the other ("lathe" / "cnc lathe").
    const named = pools.filter((p) => text(p['resource-id']));
    const pool =
      named.find((p) => normalizeName(String(p['resource-id'])) === normalizeName(name)) ??
      named.find((p) => sameName(String(p['resource-id']), name));
    let resource: ProblemResource;
    if (pool) {
      const raw = String(pool.quantity ?? '').trim();
      const digits = raw.match(/\d+/)?.[0] ?? numberWord(raw);
      resource = {
        name: String(pool['resource-id']),
        quantity: digits ? Number(digits) : 1,
        ...(text(pool['resource-type']) ? { type: text(pool['resource-type']) } : {}),
      };
      if (!digits) resource.assumed = `quantity "${raw.slice(0, 40)}" is not a number: assumed 1`;
    } else {
      resource = { name, quantity: 1, assumed: 'not in the resource pools: assumed 1' };
    }
    if (resource.assumed) notes.push(`"${resource.name}": ${resource.assumed}`);
    resources.push(resource);
    resolved.set(name, resource);
    return resource;
  };
  for (const steps of routes.values()) for (const s of steps) for (const r of s.resources) resourceFor(r);
  if ([...routes.values()].some((steps) => steps.some((s) => s.resources.length > 1))) {
    notes.push('a step that names several resources uses one unit of each at once (alternatives are not modelled)');
  }

  const allMinutes = [...routes.values()].flatMap((steps) => steps.map((s) => s.minutes));
  // Orders: the SCR's own, else the input's, else one job per product (flow shop) or routing (job shop).
  let orders = ordersFromScr(scr);
  let jobsSource: ScheduleProblem['jobsSource'] = 'scr';
  if (!orders.length && options.orders?.length) {
    orders = options.orders;
    jobsSource = 'orders';
  }
  if (!orders.length) {
    jobsSource = 'one-per-product';
    const products =
      kind === 'flow-shop' ? (list(scr.outputs).length ? list(scr.outputs) : [...routes.keys()]) : [...routes.keys()];
    orders = products.map((product, i) => ({ id: `job-${i + 1}`, product, quantity: 1 }));
    notes.push(`no orders in the SCR or the input: one job per ${kind === 'flow-shop' ? 'product' : 'routing'}`);
  }
  for (const o of orders) {
    if (o.due) allMinutes.push(Math.round(o.due.value * TIME_UNITS[o.due.units]));
    if (o.release) allMinutes.push(Math.round(o.release.value * TIME_UNITS[o.release.units]));
  }
  const timeUnit = chooseTimeUnit(allMinutes);
  const inUnit = (minutes: number) => Math.round(minutes / TIME_UNITS[timeUnit]);

  const routeFor = (product: string): [string, Step[]] => {
    if (kind === 'flow-shop') return [...routes.entries()][0]!;
    const exact = [...routes.entries()].find(([id]) => sameName(id, product));
    if (exact) return exact;
    const words = normalizeName(product).split(' ');
    const byJobs = [...routes.entries()].find(([id]) =>
      words.some(
        (w) =>
          w.length > 2 &&
          normalizeName(descriptions.get(id) ?? '')
            .split(' ')
            .includes(w),
      ),
    );
    if (byJobs) return byJobs;
    throw new ScheduleModelError(
      `product "${short(product)}" matches none of the routings (${shortList([...routes.keys()])})`,
      'orders.product',
    );
  };

  const usedIds = new Set<string>();
  const jobs: ProblemJob[] = orders.map((o, i) => {
    const [route, steps] = routeFor(o.product);
    let id = o.id ?? `order-${i + 1}`;
    while (usedIds.has(id)) id = `${id}-${i + 1}`;
    usedIds.add(id);
    return {
      id,
      order: o.id ?? id,
      product: o.product,
      quantity: o.quantity ?? 1,
      route,
      release: o.release ? inUnit(o.release.value * TIME_UNITS[o.release.units]) : 0,
      ...(o.due ? { due: inUnit(o.due.value * TIME_UNITS[o.due.units]) } : {}),
      tasks: steps.map((s) => ({
        step: s.step,
        duration: Math.max(1, inUnit(s.minutes)),
        uses: s.resources.map((r) => ({ resource: resourceFor(r).name, units: 1 })),
      })),
    };
  });

  const firmObjective = text(scr['primary-objective']) ?? null;
  const mapped = firmObjective ? OBJECTIVES[firmObjective] : undefined;
  const anyDue = jobs.some((j) => j.due !== undefined);
  let solved: SolvedObjective = options.objective ?? mapped?.solved ?? 'makespan';
  let note = options.objective ? `objective set by the input: ${options.objective}` : mapped?.note;
  if (solved === 'total-tardiness' && !anyDue) {
    solved = 'makespan';
    note = 'no job has a due date, so lateness cannot be measured: the schedule minimises makespan';
  }
  const horizon =
    Math.max(0, ...jobs.map((j) => j.release)) +
    jobs.reduce((n, j) => n + j.tasks.reduce((m, t) => m + t.duration, 0), 0);
  return {
    kind,
    firm: options.firm ?? null,
    process: kind === 'flow-shop' ? [...routes.keys()][0]! : null,
    timeUnit,
    resources,
    jobs,
    objective: { firm: firmObjective, solved, ...(note ? { note } : {}) },
    dueDates: options.dueDates ?? 'soft',
    horizon,
    jobsSource,
    notes,
  };
}

/** Conflicts visible without search: a step needing more units than exist, a deadline before the job's own minimum time. */
export function staticConflicts(problem: ScheduleProblem): ProblemConflict[] {
  const conflicts: ProblemConflict[] = [];
  const capacity = new Map(problem.resources.map((r) => [r.name, r.quantity]));
  const seen = new Set<string>();
  for (const job of problem.jobs) {
    for (const task of job.tasks) {
      for (const use of task.uses) {
        const has = capacity.get(use.resource) ?? 0;
        const key = `${task.step}|${use.resource}`;
        if (use.units > has && !seen.has(key)) {
          seen.add(key);
          conflicts.push({
            kind: 'step-needs-more-than-available',
            detail: `step "${task.step}" needs ${use.units} ${use.resource}, but the firm has ${has}`,
            job: job.id,
            step: task.step,
            resource: use.resource,
          });
        }
      }
    }
    if (problem.dueDates === 'hard' && job.due !== undefined) {
      const minimum = job.release + job.tasks.reduce((n, t) => n + t.duration, 0);
      if (minimum > job.due) {
        conflicts.push({
          kind: 'due-before-minimum-processing',
          detail: `job "${job.id}" (${job.product}) is due at ${formatTime(job.due, problem.timeUnit)} but needs at least ${formatTime(minimum, problem.timeUnit)} from time 0`,
          job: job.id,
        });
      }
    }
  }
  return conflicts;
}

export function formatTime(value: number, unit: TimeUnit): string {
  const minutes = value * TIME_UNITS[unit];
  if (minutes === 0) return '0';
  if (minutes % 1440 === 0 && minutes >= 1440) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  if (minutes > 1440) return `${(minutes / 1440).toFixed(1)} d`;
  return minutes >= 60 ? `${(minutes / 60).toFixed(1)} h` : `${minutes} min`;
}

// ---------------------------------------------------------------------------------------------
// MiniZinc.

const MZN_RESERVED = new Set(
  (
    'ann annotation any array bool case constraint diff div else elseif endif enum ' +
    'false float function if in include int intersect let list maximize minimize mod ' +
    'not of op opt output par predicate record satisfy set solve string subset ' +
    'superset symdiff test then true tuple type union var where xor'
  ).split(' '),
);

/** A readable MiniZinc identifier for a name, unique among `taken`. */
export function mznIdentifier(name: string, taken: Set<string>, prefix: string): string {
  let id = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|(?<!_)_+$/g, '');
  if (!/^[a-z]/.test(id)) id = `${prefix}_${id}`;
  if (MZN_RESERVED.has(id)) id = `${prefix}_${id}`;
  let unique = id;
  for (let n = 2; taken.has(unique); n++) unique = `${id}_${n}`;
  taken.add(unique);
  return unique;
}

const comment = (s: string) => s.replace(/[\r\n]+/g, ' ').slice(0, 200);
const mznString = (s: string) => JSON.stringify(s.replace(/[\r\n]+/g, ' ').slice(0, 80));

export interface MiniZincModel {
  /** The model (.mzn): generic constraints, with a header naming the firm's steps and resources. */
  model: string;
  /** The data (.dzn): this firm's resources, jobs and tasks, each commented. */
  data: string;
  objective: SolvedObjective;
  timeUnit: TimeUnit;
}

/** Tasks in a flat order: job by job, step by step. */
export function flatTasks(problem: ScheduleProblem) {
  return problem.jobs.flatMap((job, j) => job.tasks.map((task, k) => ({ job, jobIndex: j, task, stepIndex: k })));
}

export function toMiniZinc(problem: ScheduleProblem): MiniZincModel {
  const taken = new Set<string>();
  const resourceIds = problem.resources.map((r) => mznIdentifier(r.name, taken, 'r'));
  const jobIds = problem.jobs.map((j) => mznIdentifier(j.id, taken, 'j'));
  const tasks = flatTasks(problem);
  const rIndex = new Map(problem.resources.map((r, i) => [r.name, i]));
  const steps = [...new Set(problem.jobs.flatMap((j) => j.tasks.map((t) => t.step)))];
  const tardiness = problem.objective.solved === 'total-tardiness';
  const hard = problem.dueDates === 'hard';
  const unit = problem.timeUnit;

  const header = [
    `% Schedule model for ${comment(problem.firm ?? 'the firm')} (${problem.kind}), generated from its EADS interview.`,
    `% Time is counted in ${unit} from the start of the schedule (time 0).`,
    `% Steps: ${comment(steps.join(', '))}.`,
    `% Resources: ${comment(problem.resources.map((r) => `${r.name} x${r.quantity}`).join(', '))}.`,
    `% Objective: ${problem.objective.solved === 'makespan' ? 'finish all jobs as early as possible (makespan)' : 'least total lateness against the due dates'}` +
      `${problem.objective.firm ? ` (the firm said ${problem.objective.firm})` : ''}.`,
    ...(problem.objective.note ? [`% Note: ${comment(problem.objective.note)}.`] : []),
    ...problem.notes.map((n) => `% Assumption: ${comment(n)}.`),
  ];
  const model = [
    ...header,
    '',
    'include "cumulative.mzn";',
    '',
    '% --- data (see the .dzn file) ---',
    "enum RESOURCE;                          % the firm's resources",
    'array[RESOURCE] of int: capacity;       % how many units of each exist',
    'enum JOB;                               % one job per order',
    'array[JOB] of int: release;             % earliest start of each job',
    'array[JOB] of int: due;                 % due date of each job (-1: none)',
    'int: n_tasks;                           % every step of every job',
    'set of int: TASK = 1..n_tasks;',
    'array[TASK] of JOB: job;                % the job a task belongs to',
    "array[TASK] of string: step;            % the firm's name of the step",
    'array[TASK] of int: duration;',
    'array[TASK, RESOURCE] of int: use;      % units of each resource a task holds while it runs',
    'array[JOB] of TASK: first;              % first task of each job',
    'array[JOB] of TASK: last;               % last task of each job',
    'int: horizon;                           % no task ends later than this',
    '',
    '% --- decisions ---',
    'array[TASK] of var 0..horizon: start;',
    'array[TASK] of var 0..horizon: end = [start[t] + duration[t] | t in TASK];',
    '',
    '% --- constraints ---',
    '% Each job starts no earlier than its release.',
    'constraint forall(j in JOB)(start[first[j]] >= release[j]);',
    "% A job's steps run in order: each step starts after the previous step of the same job ends.",
    'constraint forall(t in TASK where t < n_tasks /\\ job[t] = job[t + 1])(end[t] <= start[t + 1]);',
    '% No resource is used beyond its quantity at any time.',
    'constraint forall(r in RESOURCE where exists(t in TASK)(use[t, r] > 0))(',
    '  cumulative([start[t] | t in TASK where use[t, r] > 0], [duration[t] | t in TASK where use[t, r] > 0],',
    '             [use[t, r] | t in TASK where use[t, r] > 0], capacity[r]));',
    ...(hard
      ? [
          '% Due dates are deadlines: every job ends by its due date.',
          'constraint forall(j in JOB where due[j] >= 0)(end[last[j]] <= due[j]);',
        ]
      : []),
    '',
    '% --- objective ---',
    'var int: makespan = max(t in TASK)(end[t]);',
    'var int: total_tardiness = sum(j in JOB where due[j] >= 0)(max(0, end[last[j]] - due[j]));',
    tardiness ? 'solve minimize total_tardiness;' : 'solve minimize makespan;',
    '',
    'output ["objective = \\(' + (tardiness ? 'total_tardiness' : 'makespan') + ')\\n", "makespan = \\(makespan)\\n",',
    '        "start = \\(start)\\n"];',
    '',
  ].join('\n');

  const firstOf: number[] = [];
  const lastOf: number[] = [];
  let t = 0;
  for (const job of problem.jobs) {
    firstOf.push(t + 1);
    t += job.tasks.length;
    lastOf.push(t);
  }
  const useRows = tasks.map(({ task }) => {
    const row = problem.resources.map(() => 0);
    for (const u of task.uses) row[rIndex.get(u.resource)!] += u.units;
    return row.join(', ');
  });
  const data = [
    `% Data for ${comment(problem.firm ?? 'the firm')}: ${problem.jobs.length} job(s), ${tasks.length} task(s); time in ${unit}.`,
    '',
    '% Resources and how many of each the firm has:',
    ...problem.resources.map(
      (r, i) =>
        `%   ${resourceIds[i]} = ${comment(r.name)} (${r.quantity}${r.type ? `, ${r.type}` : ''})${r.assumed ? ` [${comment(r.assumed)}]` : ''}`,
    ),
    `RESOURCE = {${resourceIds.join(', ')}};`,
    `capacity = [${problem.resources.map((r) => r.quantity).join(', ')}];`,
    '',
    '% Jobs (one per order): product, quantity, route.',
    ...problem.jobs.map(
      (j, i) =>
        `%   ${jobIds[i]} = order ${comment(j.order)}: ${comment(j.product)} x${j.quantity}, route ${comment(j.route)}`,
    ),
    `JOB = {${jobIds.join(', ')}};`,
    `release = [${problem.jobs.map((j) => j.release).join(', ')}];`,
    `due = [${problem.jobs.map((j) => j.due ?? -1).join(', ')}];`,
    '',
    `n_tasks = ${tasks.length};`,
    `horizon = ${problem.horizon};`,
    `first = [${firstOf.join(', ')}];`,
    `last = [${lastOf.join(', ')}];`,
    '% Tasks in order: job, step, duration and the resources each holds.',
    `job = [${tasks.map(({ jobIndex }) => jobIds[jobIndex]).join(', ')}];`,
    `step = [${tasks.map(({ task }) => mznString(task.step)).join(', ')}];`,
    `duration = [${tasks.map(({ task }) => task.duration).join(', ')}];`,
    `% use: one row per task, one column per resource (${resourceIds.join(', ')})`,
    'use = [|',
    ...tasks.map(
      ({ job, task }, i) =>
        `  ${useRows[i]}${i === tasks.length - 1 ? ' |];' : ' |'}   % ${i + 1}: ${comment(job.id)} / ${comment(task.step)}, ${formatTime(task.duration, unit)}`,
    ),
    ...(tasks.length === 0 ? ['|];'] : []),
    '',
  ].join('\n');
  return { model, data, objective: problem.objective.solved, timeUnit: unit };
}
