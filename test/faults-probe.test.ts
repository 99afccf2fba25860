import { describe, it, beforeAll, afterAll } from 'vitest';
import { flows } from '../contracts/flows';
import { createHarness, type Harness } from './helpers/harness';

describe('probe', () => {
  let h: Harness;
  beforeAll(async () => { h = await createHarness(); });
  afterAll(async () => h?.close());
  it('runs examples', async () => {
    for (const f of flows) {
      for (const ex of f.examples.slice(0, 1)) {
        h.standin.resetStats();
        const t = Date.now();
        const handle = await h.start(f, ex);
        await handle.result();
        const hist = await handle.fetchHistory();
        const acts = hist.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
        console.log(f.type, Date.now() - t, 'ms', JSON.stringify(h.standin.stats().byTask), 'activities', acts, 'events', hist.events!.length);
      }
    }
  }, 300_000);
});
