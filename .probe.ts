import { startOfflineStack } from './workers/offline-stack';
import { startFlow } from './client/flow-client';
import { bomQuestionFlow, type BomQuestionOutput } from './contracts/bom';
async function main() {
  const qs = process.argv.slice(2);
  const stack = await startOfflineStack({ artifactDir: '/tmp/bomx/out', quiet: true });
  try {
    for (const q of qs) {
      const out = (await (await startFlow(stack.client, bomQuestionFlow, { question: q })).result()) as BomQuestionOutput;
      const s = out.pipeline_state;
      console.log(`\n## ${q}\n  ${out.outcome} total=${s.total_rows} strategy=${s.strategy} match=${s.match} scope=${s.scope} kind=${s.parent_kind} terms=${JSON.stringify(s.search_terms)} missing=${JSON.stringify(s.missing_terms)} concepts=${JSON.stringify(s.concepts.map((c) => [c.asked, c.term, c.strategy, c.columns.join('+')]))}`);
      console.log('  ' + out.final_answer.split('\n').slice(0, 4).join('\n  '));
    }
  } finally { await stack.close(); }
}
main();
