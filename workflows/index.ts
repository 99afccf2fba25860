/** Every workflow the worker runs. One file per flow; this list is what the bundler sees. */
import { endsOnError } from './lib/flow';
import { platformCheck } from './platform-check';
import { runEadsInterview, pursueEads, listEadsLibrary } from './run-eads-interview';
import { answerBomQuestion } from './answer-bom-question';
import { writeResearchProposal } from './write-research-proposal';
import { discoverFromPrp } from './discover-from-prp';
import { scheduleFromScr } from './schedule-from-scr';

// An error thrown in a flow fails its run rather than its workflow task (see endsOnError). The
// agent registry is no flow: it runs for good, and a failing task there waits for a fix instead.
for (const flow of [
  platformCheck,
  runEadsInterview,
  pursueEads,
  listEadsLibrary,
  answerBomQuestion,
  writeResearchProposal,
  discoverFromPrp,
  scheduleFromScr,
])
  endsOnError(flow);

export {
  platformCheck,
  runEadsInterview,
  pursueEads,
  listEadsLibrary,
  answerBomQuestion,
  writeResearchProposal,
  discoverFromPrp,
  scheduleFromScr,
};
export { agentRegistry } from './agent-registry';
