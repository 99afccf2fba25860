/**
 * Each workflow run writes its artifacts (the proposal PDF, the schedule's model, data and
 * chart) under a name of its own (flows/lib/activities/artifact-names.ts): workflow ids that read the same
 * once made safe (`adv:pdf` and `adv_pdf`, long ids with one prefix) and later runs under the
 * same id no longer overwrite a file an earlier result points to. The activities run in the SDK's
 * mock activity context with the inputs recorded in old histories (test/replay), so those
 * inputs still work.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runArtifactName } from '../../flows/lib/activities/artifact-names';
import { createProposalActivities } from '../../flows/proposal/activities';
import type { ProposalPdfInfo } from '../../flows/proposal/activities/pdf';
import { createScheduleActivities, type ScheduleArtifacts } from '../../flows/schedule/activities';
import { REPLAY_DIR } from '../helpers/harness';
import { mockActivityEnvironment } from '../helpers/activity-env';
import { fakeBackends } from './fake-backends';
import type { Backends } from '../../backends';

/** The input an old history recorded for an activity (plain JSON payloads). */
function recordedInput(history: string, activity: string): Record<string, unknown> {
  const { events } = JSON.parse(readFileSync(path.join(REPLAY_DIR, `${history}.json`), 'utf8')) as {
    events: Array<{
      activityTaskScheduledEventAttributes?: {
        activityType: { name: string };
        input: { payloads: Array<{ data: string }> };
      };
    }>;
  };
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType.name === activity);
  const data = scheduled!.activityTaskScheduledEventAttributes!.input.payloads[0].data;
  return JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as Record<string, unknown>;
}

const dirs: string[] = [];
function artifactDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'artifact-names-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const run = (workflowId: string, runId: string) => ({
  workflowExecution: { workflowId, runId },
  workflowNamespace: 'default',
});

const LONG = `proposal-${'x'.repeat(200)}`;
/** Workflow ids that one safe name used to cover, and hostile ones. */
const COLLIDING: Array<[string, string]> = [
  ['adv:pdf', 'adv_pdf'],
  ['adv pdf', 'adv/pdf'],
  ['ADV-pdf', 'adv-pdf'],
  [`${LONG}-a`, `${LONG}-b`],
];
const HOSTILE = ['../../etc/passwd', '..', '.', '/', 'a\0b', 'C:\\Windows\\x', 'ünïcödé ✓', '-'.repeat(300), ''];

describe('artifact names', () => {
  it('are unique per run and per workflow id, stable for a retried activity, and safe', () => {
    const names = new Set<string>();
    for (const [a, b] of COLLIDING) {
      const [na, nb] = [runArtifactName({ workflowId: a, runId: 'r' }), runArtifactName({ workflowId: b, runId: 'r' })];
      expect(na, `${a} / ${b}`).not.toBe(nb);
      names.add(na).add(nb);
    }
    // A later run under the same id, or the same id in another namespace: another file.
    expect(runArtifactName({ workflowId: 'w', runId: 'r1' })).not.toBe(
      runArtifactName({ workflowId: 'w', runId: 'r2' }),
    );
    expect(runArtifactName({ workflowId: 'w', runId: 'r', namespace: 'a' })).not.toBe(
      runArtifactName({ workflowId: 'w', runId: 'r', namespace: 'b' }),
    );
    expect(runArtifactName({ workflowId: 'w', runId: 'r' })).toBe(runArtifactName({ workflowId: 'w', runId: 'r' }));
    for (const id of [...HOSTILE, ...COLLIDING.flat()]) {
      const name = runArtifactName({ workflowId: id, runId: 'r' }, 80);
      expect(name, JSON.stringify(id)).toMatch(/^[a-z0-9][a-z0-9-]{0,80}-[0-9a-f]{24}$/);
      expect(name.length).toBeLessThanOrEqual(80 + 25);
    }
  });

  it('the proposal PDF of one run is not replaced by another run whose id reads the same', async () => {
    const dir = artifactDir();
    const backends = { ...fakeBackends({}), config: { ARTIFACT_DIR: dir } } as unknown as Backends;
    const { renderProposalPdf } = createProposalActivities(backends);
    const input = recordedInput('research-proposal-autonomous-pass', 'renderProposalPdf');
    type PdfInput = Parameters<typeof renderProposalPdf>[0];
    const written: Array<{ path: string; bytes: number; content: Buffer }> = [];
    const runs = [
      run('adv:pdf', 'run-1'),
      run('adv_pdf', 'run-2'),
      run(`${LONG}-a`, 'run-3'),
      run(`${LONG}-b`, 'run-4'),
      run('adv:pdf', 'run-5'), // the same id again, after the first run closed
    ];
    for (const [i, info] of runs.entries()) {
      // A different title each run, so each file's content is its own.
      const proposal = { ...(input.proposal as object), title: `Proposal number ${i}` };
      const out = (await mockActivityEnvironment(info).run(renderProposalPdf, {
        ...input,
        proposal,
      } as PdfInput)) as ProposalPdfInfo;
      written.push({ ...out, content: readFileSync(out.path) });
    }
    expect(new Set(written.map((w) => w.path)).size).toBe(runs.length);
    for (const w of written) {
      expect(path.dirname(w.path)).toBe(path.join(dir, 'research-proposal'));
      expect(path.basename(w.path)).toMatch(/^[a-z0-9-]+-[0-9a-f]{24}\.pdf$/);
      // The reference the console and the CLI resolve: the key under the store.
      expect((w as { ref?: string }).ref).toBe(`research-proposal/${path.basename(w.path)}`);
      // Every file is still the one its run wrote.
      expect(readFileSync(w.path).equals(w.content), w.path).toBe(true);
      expect(statSync(w.path).size).toBe(w.bytes);
    }
    // A retried attempt of the same run writes its own file again, not a new one.
    const again = (await mockActivityEnvironment({ ...runs[0], attempt: 2 }).run(
      renderProposalPdf,
      input as PdfInput,
    )) as ProposalPdfInfo;
    expect(again.path).toBe(written[0].path);
    expect(readdirSync(path.join(dir, 'research-proposal')).filter((f) => f.endsWith('.pdf'))).toHaveLength(
      runs.length,
    );
  });

  it("the schedule's files of one run are not replaced by another run whose id reads the same", async () => {
    const dir = artifactDir();
    const { writeScheduleArtifacts } = createScheduleActivities({ config: { ARTIFACT_DIR: dir } as never });
    const input = recordedInput('schedule-from-scr-infeasible-deadlines', 'writeScheduleArtifacts');
    type ScheduleInput = Parameters<typeof writeScheduleArtifacts>[0];
    const files = [];
    // Run ids that end alike: a name keeping only the end of the run id relied on chance.
    const runs = [
      run('adv:sched', '0192c3a4-0000-7000-8000-00000000beef'),
      run('adv_sched', '0192c3a4-1111-7000-8000-00000000beef'),
      run('adv:sched', '0192c3a4-2222-7000-8000-00000000beef'),
    ];
    for (const [i, info] of runs.entries()) {
      const minizinc = { ...(input.minizinc as object), data: `% run ${i}\n` };
      const out = (await mockActivityEnvironment(info).run(writeScheduleArtifacts, {
        ...input,
        minizinc,
      } as ScheduleInput)) as ScheduleArtifacts;
      files.push(out.files);
    }
    expect(new Set(files.map((f) => f.data)).size).toBe(3);
    files.forEach((f, i) => {
      expect(path.basename(f.model)).toMatch(/^[a-z0-9-]+-[0-9a-f]{24}\.mzn$/);
      expect(readFileSync(f.data, 'utf8')).toBe(`% run ${i}\n`);
      expect(f.refs).toEqual({
        model: `schedule/${path.basename(f.model)}`,
        data: `schedule/${path.basename(f.data)}`,
      });
    });
  });
});
