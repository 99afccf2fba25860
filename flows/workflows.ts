/** Every workflow the worker runs. One file per flow; this list is what the bundler sees. */
export { platformCheck } from './platform/workflow';
export { runEadsInterview, pursueEads, listEadsLibrary } from './eads/workflow';
export { answerBomQuestion } from './bom/workflow';
export { writeResearchProposal } from './proposal/workflow';
export { discoverFromPrp } from './discovery/workflow';
export { scheduleFromScr } from './schedule/workflow';
export { agentRegistry } from './agent-registry/workflow';
