/** Every workflow the worker runs. One file per flow; this list is what the bundler sees. */
export { platformCheck } from './platform-check';
export { runEadsInterview, pursueEads, listEadsLibrary } from './run-eads-interview';
export { answerBomQuestion } from './answer-bom-question';
export { writeResearchProposal } from './write-research-proposal';
export { discoverFromPrp } from './discover-from-prp';
export { scheduleFromScr } from './schedule-from-scr';
export { agentRegistry } from './agent-registry';
