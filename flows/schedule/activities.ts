/**
 * The schedule's files: the MiniZinc model and data, and the Gantt chart (SVG, and PNG rendered
 * with resvg), put in the artifact store under schedule/. Only their references and paths go back into history.
 *
 * The solving itself is the Python worker's activity (`solveSchedule`, solver/worker.py).
 */
import { artifactStoreOf, type Backends } from '../../backends';
import type { ArtifactStore } from '../../backends/artifacts';
import { slugify } from '../../contracts/common';
import type { MinizincResults } from './contract';
import { currentRun, runArtifactName } from '../lib/activities/artifact-names';
import { ganttSvg } from './activities/chart';

export interface ScheduleArtifactsInput {
  projectId: string;
  title: string;
  minizinc: { model: string; data: string };
  results: MinizincResults;
  chart: boolean;
}

/** Paths (the file, or the gs:// URI) as results always carried them, and the references beside them. */
export interface ScheduleArtifacts {
  files: { model: string; data: string; refs?: { model: string; data: string } };
  chart: { svg: string; png: string; refs?: { svg: string; png: string } } | null;
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
  store: ArtifactStore,
  name: string,
): Promise<ScheduleArtifacts> {
  const base = `schedule/${name}`;
  const model = await store.put(`${base}.mzn`, input.minizinc.model);
  const data = await store.put(`${base}.dzn`, input.minizinc.data);
  const files = { model: model.location, data: data.location, refs: { model: model.ref, data: data.ref } };
  if (!input.chart || input.results.jobs.every((j) => j.steps.length === 0)) return { files, chart: null };
  const svg = ganttSvg(input.results, { title: input.title });
  const svgStored = await store.put(`${base}.gantt.svg`, svg);
  const pngStored = await store.put(`${base}.gantt.png`, await svgToPng(svg));
  return {
    files,
    chart: { svg: svgStored.location, png: pngStored.location, refs: { svg: svgStored.ref, png: pngStored.ref } },
  };
}

export function createScheduleActivities(backends: Pick<Backends, 'artifacts' | 'config'>) {
  const store = artifactStoreOf(backends);
  return {
    /** Writes the .mzn/.dzn and the Gantt chart, named after the workflow run: each run keeps its own files. */
    async writeScheduleArtifacts(input: ScheduleArtifactsInput): Promise<ScheduleArtifacts> {
      const run = currentRun();
      return writeScheduleArtifacts(input, store, run ? runArtifactName(run) : slugify(input.projectId, 40));
    },
  };
}
