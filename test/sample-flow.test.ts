/**
 * A flow is one folder and one line: the sample flow of test/fixtures/flows/sample, added to the
 * registry's list, runs end to end on a worker that bundles the list at start (its workflow in
 * the bundle, its contract preloaded, its activity registered, its model task answered by its
 * stand-in rule), beside the registry's flows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformCheckFlow } from '../flows/platform/contract';
import { FLOWS } from '../flows/registry';
import sample from './fixtures/flows/sample';
import { sampleEchoFlow } from './fixtures/flows/sample/contract';
import { createHarness, type Harness } from './helpers/harness';

describe('a sample flow added to the registry with one line', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ flows: [...FLOWS, sample] });
  });
  afterAll(async () => h?.close());

  it('runs: workflow, activity and stand-in rule from its folder alone', async () => {
    const out = await h.run(sampleEchoFlow, { text: 'hello there' });
    expect(out).toMatchObject({ text: 'hello there', shouted: 'HELLO THERE' });
    expect(out.usage.calls).toBe(1);
  });

  it('leaves the registry’s flows as they were', async () => {
    const out = await h.run(platformCheckFlow, { topic: 'battery' });
    expect(out.documents.length).toBeGreaterThan(0);
  });
});
