/**
 * A flow is one folder and one line in flows/registry.ts, and a flow left out cannot go
 * unnoticed: a folder under flows/ that is not registered, a workflow its workflow.ts exports but
 * does not declare, a model task without a stand-in rule, an activity name two flows register,
 * a flow file ESLint does not guard. The sample flow in test/fixtures/flows/sample goes through
 * the same machinery the registry's flows do, added with one line.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import {
  activitiesOf,
  defineFlow,
  flowDefinitions,
  modelTasksOf,
  standinRulesOf,
  type FlowModule,
} from '../../flows/lib';
import { FLOWS, flows, loadStandinRules } from '../../flows/registry';
import { parseConfig } from '../../plumbing/config';
import { buildLocalManifest } from '../../server/manifest';
import { generatedBundleModules, sharedModulesOf } from '../../workers/workflow-bundle';
import sample from '../fixtures/flows/sample';
import { inActivity } from '../helpers/activity-env';
import { fakeBackends, fakeModel } from './fake-backends';

const ROOT = path.resolve(__dirname, '..', '..');
const FLOWS_DIR = path.join(ROOT, 'flows');

/** The workflow types of the task queue: renaming one strands every run of it. */
const WORKFLOW_TYPES = [
  'platformCheck',
  'runEadsInterview',
  'pursueEads',
  'listEadsLibrary',
  'writeResearchProposal',
  'discoverFromPrp',
  'answerBomQuestion',
  'scheduleFromScr',
  'agentRegistry',
];

const backends = () => ({ ...fakeBackends({ model: fakeModel(() => ({})) }), config: parseConfig({}) });

/** The functions a flow's workflow.ts exports (imported here as plain modules, outside the sandbox). */
async function exportedFunctions(flow: FlowModule): Promise<string[]> {
  const module = (await import(path.join(flow.folder, 'workflow'))) as Record<string, unknown>;
  return Object.keys(module).filter((name) => typeof module[name] === 'function');
}

/** The source files of a folder, recursively, from the root. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.relative(ROOT, path.join(dir, entry.name))]
        : [],
  );
}

describe('the flow registry', () => {
  it('lists every folder under flows/ (but the shared lib/), each from its own folder', () => {
    const folders = readdirSync(FLOWS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'lib')
      .map((e) => e.name)
      .sort();
    expect(FLOWS.map((f) => f.name).sort()).toEqual(folders);
    for (const flow of FLOWS) expect(flow.folder).toBe(path.join(FLOWS_DIR, flow.name));
  });

  it('registers the task queue’s workflow types, each exported by its flow’s workflow.ts, and nothing else', async () => {
    expect(FLOWS.flatMap((f) => f.workflows)).toEqual(WORKFLOW_TYPES);
    for (const flow of FLOWS)
      expect((await exportedFunctions(flow)).sort(), flow.name).toEqual([...flow.workflows].sort());
  });

  it('offers every flow people start, with unique names and examples that validate', () => {
    expect(flows.map((f) => f.type)).toEqual([
      'platformCheck',
      'runEadsInterview',
      'writeResearchProposal',
      'discoverFromPrp',
      'answerBomQuestion',
      'scheduleFromScr',
    ]);
    for (const key of ['type', 'slug', 'mcpTool'] as const)
      expect(new Set(flows.map((f) => f[key])).size).toBe(flows.length);
    for (const flow of flows) {
      expect(flow.examples.length, flow.type).toBeGreaterThan(0);
      for (const example of flow.examples) expect(flow.input.safeParse(example).success, flow.type).toBe(true);
    }
  });

  it('has one stand-in rule per model task, and activities under unique names', async () => {
    const rules = await loadStandinRules();
    expect(rules.map((r) => r.task).sort()).toEqual(modelTasksOf(FLOWS).sort());
    expect(modelTasksOf(FLOWS).length).toBeGreaterThan(10);
    const activities = await activitiesOf(FLOWS, backends());
    expect(Object.keys(activities).length).toBeGreaterThan(30);
  });

  it('refuses a flow that is incomplete', async () => {
    const folder = path.join(FLOWS_DIR, 'made-up');
    // A definition whose workflow the flow does not have.
    expect(() => defineFlow<{ a: () => void }>({ folder, workflows: ['a'], definitions: [flows[0]] })).toThrow(
      /platformCheck is offered but is not among the flow's workflows/,
    );
    // A model task without a stand-in rule, and a rule for a task nobody declares.
    const noRule = defineFlow<{ a: () => void }>({
      folder,
      workflows: ['a'],
      modelTasks: ['platform.summarize'],
      standinRules: async () => [],
    });
    await expect(standinRulesOf([noRule])).rejects.toThrow(/model tasks without a stand-in rule: platform\.summarize/);
    const extraRule = defineFlow<{ a: () => void }>({
      folder,
      workflows: ['a'],
      standinRules: async () => [{ task: 'made.up', description: '', answer: () => ({}) }],
    });
    await expect(standinRulesOf([extraRule])).rejects.toThrow(/rules for tasks it does not declare: made\.up/);
    // Two flows registering one activity name.
    const platform = FLOWS.find((f) => f.name === 'platform')!;
    const again = defineFlow<{ a: () => void }>({ folder, workflows: ['a'], activities: platform.activities });
    await expect(activitiesOf([platform, again], backends())).rejects.toThrow(
      /activity describeBackends is registered by both flows\/platform and flows\/made-up/,
    );
  });

  it('guards every file of every flow folder with ESLint, by its kind', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const bundled: string[] = [];
    for (const file of [...filesUnder(FLOWS_DIR), ...filesUnder(sample.folder)]) {
      const config = (await eslint.calculateConfigForFile(path.join(ROOT, file))) as Linter.Config;
      expect(config.rules?.['layers/imports'], file).toEqual([2]);
      const restricted = JSON.stringify(config.rules?.['@typescript-eslint/no-restricted-imports'] ?? []);
      const isBundled = !/\/(activities|standin)(\.ts|\/)|\/index\.ts$|flows\/registry\.ts$/.test(file);
      expect(restricted.includes('"node:fs"'), file).toBe(isBundled);
      if (isBundled) bundled.push(file);
    }
    expect(bundled).toContain('flows/bom/workflow.ts');
    expect(bundled).toContain('flows/eads/workflow/pursuit.ts');
    expect(bundled).toContain('flows/proposal/contract.ts');
    expect(bundled).toContain(path.relative(ROOT, path.join(sample.folder, 'workflow.ts')));
  }, 60_000);
});

describe('a sample flow added with one line', () => {
  // The one line: the registry's list with the sample flow's folder added.
  const withSample: FlowModule[] = [...FLOWS, sample];

  it('is offered as a tool, a reasoner and a form', () => {
    const definitions = flowDefinitions(withSample);
    expect(definitions.map((f) => f.type)).toEqual([...flows.map((f) => f.type), 'sampleEcho']);
    const manifest = buildLocalManifest({
      agentId: 'sample',
      taskQueue: 'sample',
      namespace: 'default',
      address: '127.0.0.1:7233',
      activityNames: ['shoutText'],
      flows: definitions,
    });
    expect(manifest.reasoners?.map((r) => r.id)).toContain('sampleEcho');
  });

  it('has its workflow in the bundle entry, its contract preloaded, its activity and stand-in rule registered', async () => {
    const { entry, preload } = generatedBundleModules(withSample);
    const module = JSON.stringify(path.join(sample.folder, 'workflow'));
    const imported = new RegExp(
      `import \\* as (flow\\d+) from ${module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')};`,
    ).exec(entry);
    expect(imported, 'the sample workflow module is imported').not.toBeNull();
    expect(entry).toContain(`export const sampleEcho = endsOnError(${imported![1]}.sampleEcho);`);
    expect(sharedModulesOf(sample).map((m) => path.basename(m))).toEqual(['contract', 'model-tasks']);
    for (const module of sharedModulesOf(sample)) expect(preload).toContain(JSON.stringify(module));
    const model = fakeModel(() => ({ shouted: 'HELLO' }));
    const activities = await activitiesOf(withSample, { ...backends(), model });
    expect(Object.keys(activities)).toContain('shoutText');
    await expect(inActivity(() => activities.shoutText({ text: 'hello' }))).resolves.toMatchObject({
      data: { shouted: 'HELLO' },
    });
    expect(model.requests[0]).toMatchObject({ task: 'sample.shout', sections: { text: 'hello' } });
    const rules = await standinRulesOf(withSample);
    const rule = rules.find((r) => r.task === 'sample.shout')!;
    expect(
      rule.answer({ task: 'sample.shout', system: '', sections: { text: 'hi' }, responseSchema: {}, turns: 1 }),
    ).toEqual({ shouted: 'HI' });
  });
});
