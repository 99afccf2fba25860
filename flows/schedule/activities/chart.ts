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

/** Distinct colours: hues spaced by the golden angle, as hex (every SVG renderer reads it). */
export function jobColour(index: number): string {
  const h = (index * 137.508) % 360;
  const s = 0.62;
  const l = index % 2 ? 0.48 : 0.6;
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

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
  for (const b of bars) {
    const y = top + b.row * rowHeight + 3;
    const w = Math.max(1, x(b.end) - x(b.start));
    out.push(
      `<rect x="${x(b.start).toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowHeight - 6}" rx="2" fill="${colour.get(b.job)}" stroke="#333" stroke-width="0.4">` +
        `<title>${escapeXml(`${b.job}: ${b.step} ${b.start}–${b.end} ${results.timeUnit}`)}</title></rect>`,
    );
    if (w > 8 * (b.job.length + 1))
      out.push(
        `<text x="${(x(b.start) + 3).toFixed(1)}" y="${y + 12}" font-size="10" fill="#fff">${escapeXml(b.job)}</text>`,
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
