/**
 * The Gantt chart's legibility: a step far shorter than the schedule still shows as a bar with
 * its job named beside it when there is room, and jobs that follow each other get clearly
 * different colours.
 */
import { describe, expect, it } from 'vitest';
import { ganttSvg, jobColour, MIN_BAR_WIDTH, textColourOn } from '../../flows/schedule/activities/chart';
import type { MinizincResults } from '../../flows/schedule/contract';

/** How far apart two colours look, roughly: the distance between them in RGB (0 to 441). */
const distance = (x: string, y: string) =>
  Math.hypot(...[1, 3, 5].map((i) => parseInt(x.slice(i, i + 2), 16) - parseInt(y.slice(i, i + 2), 16)));

describe('Gantt chart', () => {
  it('gives neighbouring jobs clearly different colours', () => {
    for (let i = 0; i < 30; i++)
      expect(distance(jobColour(i), jobColour(i + 1)), `${jobColour(i)} vs ${jobColour(i + 1)}`).toBeGreaterThan(85);
    expect(textColourOn('#1f77b4')).toBe('#ffffff');
    expect(textColourOn('#ffbb78')).toBe('#111111');
  });

  it('draws a short step at a visible width, named beside it when the row has room', () => {
    const results = {
      status: 'optimal',
      solver: 'test',
      objective: { name: 'makespan', firm: null, value: 1000, bound: 1000, gap: 0 },
      timeUnit: 'minutes',
      makespan: 1000,
      makespanText: '1000 minutes',
      totalTardiness: null,
      solveSeconds: 0,
      jobs: [
        {
          id: 'J-short',
          product: 'p',
          quantity: 1,
          route: 'r',
          due: null,
          end: 1,
          late: null,
          steps: [{ step: 'cut', start: 0, end: 1, resources: ['saw'] }],
        },
        {
          id: 'J-long',
          product: 'p',
          quantity: 1,
          route: 'r',
          due: null,
          end: 1000,
          late: null,
          steps: [{ step: 'cut', start: 500, end: 1000, resources: ['saw'] }],
        },
      ],
      resources: [{ name: 'saw', quantity: 1, busy: 501, utilisation: 0.5, peak: 1, changeovers: 0 }],
      conflicts: [],
    } as unknown as MinizincResults;
    const svg = ganttSvg(results, { title: 't' });
    const bar = /<rect [^>]* width="([\d.]+)"[^>]*><title>J-short: cut 0–1 minutes<\/title>/.exec(svg);
    expect(bar).not.toBeNull();
    expect(Number(bar![1])).toBeGreaterThanOrEqual(MIN_BAR_WIDTH);
    expect(svg).toMatch(/<text [^>]*fill="#333">J-short<\/text>/);
  });
});
