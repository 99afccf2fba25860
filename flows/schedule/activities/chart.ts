/**
 * A Gantt chart of a solved schedule as SVG: one row per unit of each resource (a resource with
 * eight fermenters gets eight rows), one colour per job, time along the x axis. Pure: the
 * activity in ./schedule.ts writes it and renders the PNG.
 */
import type { MinizincResults } from '../contract';
import { formatTime, TIME_UNITS, type TimeUnit } from '../../../domain/schedule-model';

export interface ChartBar {
  row: number;
  job: string;
  step: string;
  start: number;
  end: number;
}

export interface ChartRows {
  rows: Array<{ resource: string; unit: number; of: number }>;
  bars: ChartBar[];
}

/**
 * Puts each use of a resource on one of its units: a use of u units takes u rows that are free
 * at its start (first fit in start order, which never runs out when no more than the quantity
 * is in use at once).
 */
export function assignRows(results: MinizincResults): ChartRows {
  const rows: ChartRows['rows'] = [];
  const bars: ChartBar[] = [];
  for (const r of results.resources) {
    const uses = results.jobs
      .flatMap((j) =>
        j.steps
          .filter((s) => s.resources.includes(r.name))
          .map((s) => ({ job: j.id, step: s.step, start: s.start, end: s.end })),
      )
      .sort((a, b) => a.start - b.start || a.end - b.end);
    if (!uses.length) continue;
    const lanes = Math.max(1, Math.min(r.quantity, r.peak || 1));
    const first = rows.length;
    for (let u = 0; u < lanes; u++) rows.push({ resource: r.name, unit: u + 1, of: r.quantity });
    const freeAt = new Array<number>(lanes).fill(-Infinity);
    for (const use of uses) {
      let lane = freeAt.findIndex((t) => t <= use.start);
      if (lane < 0) lane = freeAt.indexOf(Math.min(...freeAt)); // over capacity: drawn overlapping, visibly
      freeAt[lane] = use.end;
      bars.push({ row: first + lane, ...use });
    }
  }
  return { rows, bars };
}

/**
 * A qualitative palette (Tableau 10's strong colours, then its light ones) in an order where any
 * two consecutive entries look clearly different: jobs that follow each other on a machine (J1,
 * J2, J3 in a flow shop) never get look-alike colours, as golden-angle hues did once the hues
 * came round again. Past 20 jobs it repeats; the bar's label and tooltip tell those apart.
 */
const PALETTE = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#c49c94',
  '#aec7e8',
  '#dbdb8d',
  '#9edae5',
  '#ff9896',
  '#c5b0d5',
  '#98df8a',
  '#f7b6d2',
  '#ffbb78',
  '#c7c7c7',
] as const;

/** The colour of the job at `index` (see PALETTE). */
export function jobColour(index: number): string {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length]!;
}

/** Black or white, whichever reads better on `hex` (relative luminance, WCAG). */
export function textColourOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return luminance > 0.3 ? '#111111' : '#ffffff';
}

/** The narrowest a bar is drawn (px): a five-minute step in a three-week schedule stays visible. */
export const MIN_BAR_WIDTH = 6;

const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** A readable tick step (in the problem's unit) for about `target` ticks over `span`. */
function tickStep(span: number, unit: TimeUnit, target = 10): { step: number; label: (t: number) => string } {
  const minutes = TIME_UNITS[unit];
  const spanMinutes = Math.max(1, span * minutes);
  const candidates = [1, 5, 10, 15, 30, 60, 120, 240, 360, 720, 1440, 2880, 10080, 20160, 40320];
  const stepMinutes =
    candidates.find((c) => spanMinutes / c <= target) ?? Math.ceil(spanMinutes / target / 1440) * 1440;
  const step = Math.max(1, Math.round(stepMinutes / minutes));
  const label = (t: number) => {
    const m = t * minutes;
    if (stepMinutes >= 1440) return `${Math.round(m / 1440)} d`;
    if (stepMinutes >= 60) return `${Math.round((m / 60) * 10) / 10} h`;
    return `${m} min`;
  };
  return { step, label };
}

export function ganttSvg(results: MinizincResults, options: { title: string }): string {
  const { rows, bars } = assignRows(results);
  const jobs = results.jobs.map((j) => j.id);
  const colour = new Map(jobs.map((j, i) => [j, jobColour(i)]));
  const span = Math.max(1, results.makespan ?? Math.max(1, ...bars.map((b) => b.end)));
  const labelWidth = 210;
  const plotWidth = 960;
  const rowHeight = 22;
  const top = 58;
  const legendCols = 4;
  const legendJobs = jobs.slice(0, 24);
  const legendRows = Math.ceil(legendJobs.length / legendCols) + (jobs.length > legendJobs.length ? 1 : 0);
  const plotHeight = rows.length * rowHeight;
  const height = top + plotHeight + 36 + legendRows * 18 + 10;
  const width = labelWidth + plotWidth + 20;
  const x = (t: number) => labelWidth + (t / span) * plotWidth;
  const { step, label } = tickStep(span, results.timeUnit as TimeUnit);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  const unit = results.timeUnit as TimeUnit;
  const late =
    results.objective.name === 'total-tardiness'
      ? `total lateness ${results.totalTardiness !== null ? formatTime(results.totalTardiness, unit) : '-'}; `
      : '';
  const subtitle = `${results.status} (${results.solver}); ${late}makespan ${results.makespanText ?? '-'}; ${jobs.length} job(s)`;
  out.push(`<text x="10" y="20" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`);
  out.push(`<text x="10" y="38" fill="#555">${escapeXml(subtitle)}</text>`);
  for (let t = 0; t <= span; t += step) {
    out.push(
      `<line x1="${x(t).toFixed(1)}" y1="${top - 4}" x2="${x(t).toFixed(1)}" y2="${top + plotHeight}" stroke="#e2e2e2"/>`,
    );
    out.push(
      `<text x="${x(t).toFixed(1)}" y="${top + plotHeight + 14}" text-anchor="middle" fill="#555" font-size="10">${escapeXml(label(t))}</text>`,
    );
  }
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    if (i % 2 === 0)
      out.push(`<rect x="${labelWidth}" y="${y}" width="${plotWidth}" height="${rowHeight}" fill="#f6f6f6"/>`);
    const name = r.of > 1 ? `${r.resource} ${r.unit}/${r.of}` : r.resource;
    out.push(
      `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(name.length > 30 ? `${name.slice(0, 29)}…` : name)}</text>`,
    );
  });
  // Where the next bar on the same row starts: a label too wide for its bar goes just after
  // the bar when it fits before that.
  const nextStart = new Map<ChartBar, number>();
  const byRow = new Map<number, ChartBar[]>();
  for (const b of bars) byRow.set(b.row, [...(byRow.get(b.row) ?? []), b]);
  for (const rowBars of byRow.values()) {
    rowBars.sort((a, b) => a.start - b.start);
    rowBars.forEach((b, i) =>
      nextStart.set(b, i + 1 < rowBars.length ? x(rowBars[i + 1]!.start) : labelWidth + plotWidth),
    );
  }
  const labelPx = (s: string) => 6.2 * s.length + 6;
  for (const b of bars) {
    const y = top + b.row * rowHeight + 3;
    const w = Math.max(MIN_BAR_WIDTH, x(b.end) - x(b.start));
    const fill = colour.get(b.job) ?? '#888888';
    out.push(
      `<rect x="${x(b.start).toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowHeight - 6}" rx="2" fill="${fill}" stroke="#333" stroke-width="0.4">` +
        `<title>${escapeXml(`${b.job}: ${b.step} ${b.start}–${b.end} ${results.timeUnit}`)}</title></rect>`,
    );
    if (w >= labelPx(b.job))
      out.push(
        `<text x="${(x(b.start) + 3).toFixed(1)}" y="${y + 12}" font-size="10" fill="${textColourOn(fill)}">${escapeXml(b.job)}</text>`,
      );
    else if (nextStart.get(b)! - (x(b.start) + w) >= labelPx(b.job) + 2)
      out.push(
        `<text x="${(x(b.start) + w + 2).toFixed(1)}" y="${y + 12}" font-size="10" fill="#333">${escapeXml(b.job)}</text>`,
      );
  }
  const legendTop = top + plotHeight + 34;
  legendJobs.forEach((j, i) => {
    const lx = 10 + (i % legendCols) * ((width - 20) / legendCols);
    const ly = legendTop + Math.floor(i / legendCols) * 18;
    const job = results.jobs[i]!;
    out.push(`<rect x="${lx.toFixed(1)}" y="${ly}" width="12" height="12" fill="${colour.get(j)}"/>`);
    out.push(
      `<text x="${(lx + 16).toFixed(1)}" y="${ly + 10}" font-size="11">${escapeXml(`${j}: ${job.product}`.slice(0, 40))}</text>`,
    );
  });
  if (jobs.length > legendJobs.length)
    out.push(
      `<text x="10" y="${legendTop + (legendRows - 1) * 18 + 10}" font-size="11" fill="#555">… and ${jobs.length - legendJobs.length} more job(s)</text>`,
    );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
