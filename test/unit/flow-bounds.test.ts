/**
 * Every flow ends: inputs are bounded by the work they imply before workflow code builds on them,
 * and what workflow code does with a bounded input is linear. Two inputs used to wedge a workflow
 * (its task failed or timed out on every attempt, for ever):
 *
 * - a PRP whose heading line held a long run of spaces: the heading pattern backtracked (4 s at
 *   1,000 spaces, 43 s at 2,000; the worker stops a task at 5 s);
 * - a 21 KB SCR holding 300 orders and 200 steps: a 3.96 MB problem for the solver activity,
 *   refused as PayloadsTooLarge on every task (400 × 1000 timed out the task instead).
 *
 * Pure code, run under an execution limit like the worker's (test/helpers/work-budget.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, nestedTooDeep, parseFlowInput, safeParseFlowInput, zodIssues } from '../../contracts/common';
import { discoverFromPrpInput, EXAMPLE_PRP } from '../../flows/discovery/contract';
import { peakUnits, scheduleFromScrInput, summariseSchedule, type SolverReply } from '../../flows/schedule/contract';
import { atxHeading, extractTargetSchema, isDelimiterRow, MAX_TARGET_COLUMNS } from '../../flows/discovery/prp-schema';
import {
  buildScheduleProblem,
  SCHEDULE_LIMITS,
  ScheduleModelError,
  toMiniZinc,
  type ScheduleProblem,
} from '../../domain/schedule-model';
import type { JsonObject } from '../../domain/eads-structure';
import { withinBudget } from '../helpers/work-budget';

const KB50 = 50_000;

describe('a PRP is read in linear time', () => {
  /** Lines that made the old heading, delimiter and list patterns backtrack, at 50 KB. */
  const pathological = [
    '#' + ' '.repeat(KB50) + 'x\r!',
    '# a' + ' '.repeat(KB50) + '\u2028x',
    '# ' + ' '.repeat(KB50) + '#'.repeat(3) + ' '.repeat(KB50) + '\rx',
    '## ' + '# '.repeat(KB50 / 2) + '\r!',
    ' '.repeat(KB50) + 'x',
    '|' + ' '.repeat(KB50) + 'x',
    '| --' + ' '.repeat(KB50) + '|x',
    '- a (STRING):' + ' '.repeat(KB50) + '\rx',
    '- a (' + 'b'.repeat(KB50),
    '#'.repeat(KB50),
    '\t'.repeat(KB50) + '\u0000',
  ];

  it.each(pathological.map((line, i) => [i, line]))(
    'pathological line %i, as a heading and in section 9',
    (_, line) => {
      const prps = [line, `## 9. Target Schema\n${line}\n| a | b |\n${line}\n- c (INT64)\n${line}`];
      for (const prp of prps) {
        withinBudget('extractTargetSchema', () => extractTargetSchema(prp));
        // A PRP without a section 9 is read whole for a layout table.
        withinBudget('extractTargetSchema anyTable', () => extractTargetSchema(prp, { anyTable: true }));
      }
    },
  );

  it('a 200,000-character PRP of headings, or of table rows, is read at once', () => {
    const headings = Array.from({ length: 20_000 }, (_, i) => `## ${i}`).join('\n');
    const rows = `## 9. Target Schema\n| Column | Type |\n|---|---|\n${Array.from({ length: 10_000 }, (_, i) => `| c${i} | INT64 |`).join('\n')}`;
    // Without a section 9, the whole PRP is read for a layout table: many small tables, none a schema.
    const tables = `# PRP\n${'| Column | Size |\n|---|---|\n| a | 1 |\n'.repeat(6_000)}`;
    for (const prp of [headings, rows, `${headings}\n${rows}`, tables]) {
      expect(prp.length).toBeLessThan(400_000);
      withinBudget('extractTargetSchema', () => extractTargetSchema(prp));
      withinBudget('extractTargetSchema anyTable', () => extractTargetSchema(prp, { anyTable: true }));
    }
  });

  /** The heading pattern the parser replaces: same lines, same texts. */
  const OLD_HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const headingChars = fc.constantFrom('#', ' ', '\t', 'a', '9', '.', '\r', '\u2028', '*', '\u00a0');

  it('reads the same headings as the pattern it replaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: headingChars, maxLength: 24 }), (line) => {
        const m = OLD_HEADING.exec(line);
        expect(atxHeading(line)).toEqual(m ? { level: m[1].length, text: m[2] } : undefined);
      }),
      { numRuns: 3_000, seed: 29 },
    );
    expect(atxHeading('## 9. Target Schema ##')).toEqual({ level: 2, text: '9. Target Schema' });
    expect(atxHeading('    # code')).toBeUndefined();
    expect(atxHeading('####### seven')).toBeUndefined();
  });

  it('reads the same delimiter rows as the pattern it replaces', () => {
    const OLD_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('|', '-', ':', ' ', 'a'), maxLength: 16 }), (line) => {
        expect(isDelimiterRow(line)).toBe(OLD_DELIMITER.test(line));
      }),
      { numRuns: 3_000, seed: 29 },
    );
  });

  it(`refuses a PRP whose section 9 has more than ${MAX_TARGET_COLUMNS} columns, naming prp`, () => {
    const table = (n: number) =>
      `# PRP\n## 9. Target Schema\n| Column | Type |\n|---|---|\n${Array.from({ length: n }, (_, i) => `| c${i} | INT64 |`).join('\n')}\n`;
    expect(discoverFromPrpInput.safeParse({ prp: table(MAX_TARGET_COLUMNS) }).success).toBe(true);
    const refused = discoverFromPrpInput.safeParse({ prp: table(MAX_TARGET_COLUMNS + 1) });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues).toEqual([
      expect.objectContaining({ path: ['prp'], message: expect.stringMatching(/201 columns; at most 200/) }),
    ]);
    // A targetSchema given with the input is what counts: section 9 is not read.
    expect(
      discoverFromPrpInput.safeParse({
        prp: table(MAX_TARGET_COLUMNS + 1),
        targetSchema: [{ name: 'a', type: 'INT64' }],
      }).success,
    ).toBe(true);
    expect(discoverFromPrpInput.safeParse({ prp: EXAMPLE_PRP }).success).toBe(true);
  });

  it('names where an oversized layout table was read when the PRP has no section 9', () => {
    const rows = Array.from({ length: MAX_TARGET_COLUMNS + 1 }, (_, i) => `| c${i} | INT64 |`).join('\n');
    const refused = discoverFromPrpInput.safeParse({ prp: `# PRP\n## Layout\n| Field | Type |\n|---|---|\n${rows}\n` });
    expect(refused.error?.issues).toEqual([
      expect.objectContaining({
        path: ['prp'],
        message: expect.stringMatching(/^the target schema table in the PRP has 201/),
      }),
    ]);
  });
});

/** A flow-shop SCR: `steps` steps, each using `perStep` of `resources` resources, and `orders` order rows. */
function flowShop(
  steps: number,
  orders: number,
  options: { resources?: number; perStep?: number; name?: number } = {},
) {
  const { resources = 20, perStep = 1, name = 6 } = options;
  const named = (prefix: string, i: number, n = name) => `${prefix}${i}-`.padEnd(n, 'x');
  return {
    'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM',
    subprocesses: Array.from({ length: steps }, (_, i) => ({
      'process-id': named('s', i),
      resources: Array.from({ length: perStep }, (_, k) => named('r', (i + k) % resources)),
      duration: { units: 'minutes', 'value-string': '5' },
    })),
    'resource-pools': Array.from({ length: resources }, (_, i) => ({ 'resource-id': named('r', i), quantity: '2' })),
    ...(orders
      ? {
          'customer-orders': Array.from({ length: orders }, (_, i) => ({
            'order-id': named('o', i, Math.min(name, 60)),
            product: named('p', i, name === SCHEDULE_LIMITS.nameChars ? SCHEDULE_LIMITS.productChars : name),
            quantity: '1',
          })),
        }
      : {}),
  };
}

/** What a solver could answer for every task (one after another). */
function solved(problem: ScheduleProblem): SolverReply {
  let t = 0;
  return {
    solver: 'test',
    status: 'feasible',
    objectiveName: 'makespan',
    objective: 1,
    bound: 1,
    makespan: 1,
    totalTardiness: 0,
    solveSeconds: 1,
    tasks: problem.jobs.flatMap((j) => j.tasks.map((k) => ({ job: j.id, step: k.step, start: t++, end: t + 4 }))),
    conflicts: [],
  };
}

describe('a schedule is bounded by the work its SCR implies', () => {
  it.each([
    [200, 300],
    [400, 1_000],
  ])('refuses %i steps × %i orders inside the SCR at the schema, naming the field', (steps, orders) => {
    const scr = flowShop(steps, orders);
    expect(JSON.stringify(scr).length).toBeLessThan(200_000);
    const refused = scheduleFromScrInput.safeParse({ projectId: 'blow-up', scr });
    expect(refused.success).toBe(false);
    const issues = refused.error!.issues;
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue.path[0]).toBe('scr');
      expect(issue.message.length).toBeLessThan(300);
    }
    // The same SCR handed to the model builder directly (the activities, the bench) fails as fast.
    expect(() => withinBudget('buildScheduleProblem', () => buildScheduleProblem(scr as JsonObject))).toThrow(
      ScheduleModelError,
    );
  });

  it('names orders × steps when each count alone is allowed', () => {
    const refused = scheduleFromScrInput.safeParse({ projectId: 'blow-up', scr: flowShop(20, 300) });
    expect(refused.error!.issues).toEqual([
      expect.objectContaining({
        path: ['scr', 'customer-orders'],
        message: expect.stringMatching(/^300 job\(s\) × up to 20 step\(s\) each \(subprocesses\) = 6,000 tasks/),
      }),
    ]);
    // The input's own orders count the same way.
    const orders = Array.from({ length: 300 }, () => ({ product: 'p' }));
    const viaInput = scheduleFromScrInput.safeParse({ projectId: 'blow-up', scr: flowShop(20, 0), orders });
    expect(viaInput.error!.issues).toEqual([
      expect.objectContaining({ path: ['orders'], message: expect.stringMatching(/6,000 tasks/) }),
    ]);
    // Under an interview's `merged_scr`, the path says so.
    const merged = scheduleFromScrInput.safeParse({ projectId: 'blow-up', scr: { merged_scr: flowShop(20, 300) } });
    expect(merged.error!.issues[0]!.path).toEqual(['scr', 'merged_scr', 'customer-orders']);
  });

  it.each([
    [
      'a step with a long name',
      {
        ...flowShop(3, 1),
        subprocesses: [{ 'process-id': 'x'.repeat(500), duration: { units: 'minutes', 'value-string': '5' } }],
      },
      /subprocesses\.0\.process-id: is 500 characters long/,
    ],
    [
      'a step naming many resources',
      flowShop(3, 1, { perStep: 30, resources: 40 }),
      /subprocesses\.0\.resources: has 30 resources/,
    ],
    [
      'a duration of 10^30 minutes',
      {
        ...flowShop(3, 1),
        subprocesses: [{ 'process-id': 'a', duration: { units: 'weeks', 'value-string': '1'.padEnd(31, '0') } }],
      },
      /subprocesses\.0\.duration: is longer than/,
    ],
  ])('refuses %s', (_, scr, message) => {
    const refused = scheduleFromScrInput.safeParse({ projectId: 'bounds', scr });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => `${i.path.slice(1).join('.')}: ${i.message}`).join('\n')).toMatch(message);
  });

  // The largest problems the limits allow, in each direction: every payload the workflow sends
  // or returns stays far below Temporal's 2 MB, and building it is quick.
  it.each([
    ['many steps', flowShop(200, 5, { perStep: 2, name: SCHEDULE_LIMITS.nameChars })],
    ['many orders', flowShop(2, 500, { perStep: 2, name: SCHEDULE_LIMITS.nameChars })],
    ['many resources per step', flowShop(1, 500, { perStep: 4, name: SCHEDULE_LIMITS.nameChars })],
    ['many resources', flowShop(10, 100, { resources: 20, perStep: 2, name: SCHEDULE_LIMITS.nameChars })],
  ])('the largest allowed problem (%s) fits in every payload', (_, scr) => {
    expect(scheduleFromScrInput.safeParse({ projectId: 'largest', scr }).success).toBe(true);
    const { problem, minizinc, results } = withinBudget('building and summarising the schedule', () => {
      const problem = buildScheduleProblem(scr as JsonObject);
      return { problem, minizinc: toMiniZinc(problem), results: summariseSchedule(problem, solved(problem)) };
    });
    const size = (v: unknown) => JSON.stringify(v).length;
    expect(size(problem)).toBeLessThan(1_000_000); // the solver activity's input
    expect(size({ minizinc, results })).toBeLessThan(1_000_000); // the artifacts activity's input, and the result
  });

  it('counts the peak of a resource as the scan over every use did', () => {
    const use = fc.record({
      start: fc.integer({ min: 0, max: 20 }),
      length: fc.integer({ min: 0, max: 6 }),
      units: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(use, { maxLength: 30 }), (raw) => {
        const uses = raw.map((u) => ({ start: u.start, end: u.start + u.length, units: u.units }));
        const scan = uses.reduce(
          (peak, u) =>
            Math.max(
              peak,
              uses.filter((v) => v.start <= u.start && u.start < v.end).reduce((n, v) => n + v.units, 0),
            ),
          0,
        );
        expect(peakUnits(uses)).toBe(scan);
      }),
      { numRuns: 2_000, seed: 29 },
    );
    expect(peakUnits([{ start: NaN, end: NaN, units: 1 }])).toBe(0);
  });
});

describe('input nesting is bounded before anything walks it', () => {
  /** `levels` arrays inside each other, as JSON.parse builds them from text (no recursion to make it). */
  const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}"x"${']'.repeat(levels)}`) as unknown;

  it.each([65, 100_000])('refuses input nested %i deep, naming where, without recursing', (levels) => {
    const input = {
      projectId: 'deep',
      scr: { 'principal-problem-type': 'FLOW-SHOP-SCHEDULING-PROBLEM', x: nested(levels) },
    };
    const result = withinBudget('safeParseFlowInput', () => safeParseFlowInput(scheduleFromScrInput, input));
    expect(result.success).toBe(false);
    expect(zodIssues(result.error!)).toEqual([
      { field: 'scr.x.0.0.0.0.…', message: `nested more than ${MAX_INPUT_DEPTH} levels deep` },
    ]);
    // The workflow's own check fails the same way (a non-retryable InvalidInput), not with a stack overflow.
    expect(() => parseFlowInput('scheduleFromScr', scheduleFromScrInput, input)).toThrow(/invalid input: scr\.x\.0/);
  });

  it('accepts what the flows need', () => {
    expect(nestedTooDeep({ a: [{ b: nested(MAX_INPUT_DEPTH - 3) }] })).toBeUndefined();
    expect(nestedTooDeep({ a: [{ b: nested(MAX_INPUT_DEPTH) }] })).toEqual([
      'a',
      0,
      'b',
      ...Array(MAX_INPUT_DEPTH - 3).fill(0),
    ]);
  });
});
