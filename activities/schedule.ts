/**
 * The schedule's files: the MiniZinc model and data, and the Gantt chart (SVG, and PNG rendered
 * with resvg), written to ARTIFACT_DIR/schedule/. Only their paths go back into history.
 *
 * The solving itself is the Python worker's activity (`solveSchedule`, solver/worker.py).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Backends } from '../backends';
import { slugify } from '../contracts/common';
import type { MinizincResults } from '../contracts/schedule';
import { currentRun, runArtifactName } from './artifact-names';
import { ganttSvg } from './schedule-chart';

export interface ScheduleArtifactsInput {
  projectId: string;
  title: string;
  minizinc: { model: string; data: string };
  results: MinizincResults;
  chart: boolean;
}

export interface ScheduleArtifacts {
  files: { model: string; data: string };
  chart: { svg: string; png: string } | null;
}

/** SVG to PNG (twice the SVG's size, with the system's fonts). */
export async function svgToPng(svg: string): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  const width = Number(svg.match(/width="(\d+)"/)?.[1] ?? 1000);
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'width', value: width * 2 },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}

export async function writeScheduleArtifacts(
  input: ScheduleArtifactsInput,
  dir: string,
  name: string,
): Promise<ScheduleArtifacts> {
  await mkdir(dir, { recursive: true });
  const base = path.join(dir, name);
  const files = { model: `${base}.mzn`, data: `${base}.dzn` };
  await writeFile(files.model, input.minizinc.model);
  await writeFile(files.data, input.minizinc.data);
  if (!input.chart || input.results.jobs.every((j) => j.steps.length === 0)) return { files, chart: null };
  const svg = ganttSvg(input.results, { title: input.title });
  const chart = { svg: `${base}.gantt.svg`, png: `${base}.gantt.png` };
  await writeFile(chart.svg, svg);
  await writeFile(chart.png, await svgToPng(svg));
  return { files, chart };
}

export function createScheduleActivities({ config }: Pick<Backends, 'config'>) {
  const dir = path.join(path.resolve(config?.ARTIFACT_DIR ?? 'out'), 'schedule');
  return {
    /** Writes the .mzn/.dzn and the Gantt chart, named after the workflow run: each run keeps its own files. */
    async writeScheduleArtifacts(input: ScheduleArtifactsInput): Promise<ScheduleArtifacts> {
      const run = currentRun();
      return writeScheduleArtifacts(input, dir, run ? runArtifactName(run) : slugify(input.projectId, 40));
    },
  };
}
