/**
 * Per-prefix fault seeds: tasks named in `seeds` draw their faults from a PRNG of their own, so a
 * flow meets the same faults whether it runs alone or beside others (the model-fault test runs its
 * flows at the same time and relies on this).
 */
import { describe, expect, it } from 'vitest';
import { startStandin, type StandinServer } from '../../standin/server';

const rules = ['alpha.', 'beta.'].map((task) => ({ task, description: 'answers ok', answer: () => ({ ok: true }) }));

/** The HTTP status of one generateContent call for a task. */
async function call(standin: StandinServer, task: string): Promise<number> {
  const res = await fetch(`${standin.url}/v1beta/models/m:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      systemInstruction: { parts: [{ text: `Task: ${task}` }] },
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
    }),
  });
  await res.text();
  return res.status;
}

describe("the stand-in's per-prefix fault seeds", () => {
  it("gives a prefix's tasks the same faults alone and interleaved with another prefix's", async () => {
    const standin = await startStandin({ port: 0, rules });
    try {
      const settings = { rate503: 0.5, seeds: { 'alpha.': 11, 'beta.': 12 } };
      standin.setFaults(settings);
      const alone: number[] = [];
      for (let i = 0; i < 16; i++) alone.push(await call(standin, 'alpha.step'));
      expect(alone).toContain(503);
      expect(alone).toContain(200);

      standin.setFaults(settings);
      const interleaved: number[] = [];
      for (let i = 0; i < 16; i++) {
        await call(standin, 'beta.step');
        interleaved.push(await call(standin, 'alpha.step'));
      }
      expect(interleaved).toEqual(alone);
    } finally {
      await standin.close();
    }
  });
});
