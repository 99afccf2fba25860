/**
 * How the work is organised, read from the shape of the steps a firm gave rather than from its
 * words: the routes its kinds of jobs take (each an ordered list of steps) and, where known, the
 * equipment each step uses.
 *
 *  - one order for everything: every route visits the steps in one common order and each route
 *    covers most of the steps (some jobs skip a step or two): a line;
 *  - a route per job: two routes visit two steps in opposite orders, or a route covers less than
 *    half of the steps the routes use between them (families of work that share few steps);
 *  - anything between, fewer than two routes, or steps that all queue on one piece of equipment
 *    (one shared machine is neither a line nor a job shop): no reading.
 *
 * Pure and without a model, so the reading can be checked with invented routes.
 */

export type RouteShape = 'same' | 'own';

/** Every route must cover at least this share of all the steps for one order to be a line. */
const LINE_COVERAGE = 2 / 3;
/** A route that covers less than this share of all the steps is work of its own kind. */
const OWN_COVERAGE = 1 / 2;

const norm = (step: string) =>
  step
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Whether two routes visit some pair of steps in opposite orders. */
function crossed(a: string[], b: string[]): boolean {
  const at = new Map(b.map((s, i) => [s, i]));
  const shared = a.filter((s) => at.has(s));
  for (let i = 0; i < shared.length; i++)
    for (let j = i + 1; j < shared.length; j++) if (at.get(shared[i])! > at.get(shared[j])!) return true;
  return false;
}

/**
 * The shape of a set of routes: `same` (one order, most steps in every route), `own` (orders
 * that cross, or routes sharing few steps), or undefined. `equipment` maps a step to what it uses;
 * when one piece of equipment serves more than half of the steps, the work queues on it and
 * no shape is read.
 */
export function routeShape(
  routes: ReadonlyArray<readonly string[]>,
  equipment: ReadonlyMap<string, readonly string[]> = new Map(),
): RouteShape | undefined {
  const seqs = routes
    .map((r) => r.map(norm).filter(Boolean))
    .map((r) => r.filter((s, i) => r.indexOf(s) === i))
    .filter((r) => r.length >= 2);
  const distinct = [...new Map(seqs.map((r) => [r.join('>'), r])).values()];
  if (distinct.length < 2) return undefined;
  const all = new Set(distinct.flat());
  if (all.size < 3) return undefined;
  if (queuesOnOne([...all], equipment)) return undefined;
  const pairs = distinct.flatMap((a, i) => distinct.slice(i + 1).map((b) => [a, b] as const));
  if (pairs.some(([a, b]) => crossed(a, b))) return 'own';
  const cover = distinct.map((r) => r.length / all.size);
  if (cover.some((c) => c < OWN_COVERAGE)) return 'own';
  if (cover.every((c) => c >= LINE_COVERAGE)) return 'same';
  return undefined;
}

/** More than half of the steps use one and the same piece of equipment. */
function queuesOnOne(steps: string[], equipment: ReadonlyMap<string, readonly string[]>): boolean {
  const uses = new Map<string, number>();
  for (const [step, kit] of equipment) {
    if (!steps.includes(norm(step))) continue;
    for (const k of new Set(kit.map(norm))) uses.set(k, (uses.get(k) ?? 0) + 1);
  }
  return [...uses.values()].some((n) => n * 2 > steps.length);
}
