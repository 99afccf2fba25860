/**
 * What the console's handlers use beyond HTML: the Temporal client library, the flow contracts
 * (every flow's zod schemas) and the forms made from them. Loaded with the first console request
 * that needs it (plugin.ts imports it with import()), not when the control plane starts: the
 * client library with grpc-js and its protobuf definitions is ~30 MB of RSS and the flow
 * contracts a few MB of heap, which a control plane serving discovery never uses.
 */
export { rootCause } from '@temporalio/common';
export { QueryNotRegisteredError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
export { EadsSession, EadsSessionError, updateErrorMessage } from '../../access/eads-session';
export { InvalidFlowInput, startFlow, validateFlowInput } from '../../access/flow-client';
export { eadsInterviewQuery } from '../../flows/eads/contract';
export { flows, findFlow } from '../../flows/registry';
export { answerQuestionUpdate, reviewProposalUpdate } from '../../flows/proposal/messages';
export { formFields, inputFromForm, renderStartForm } from './forms';
export { gridToMarkdown, recentRuns, renderRecentRuns, snapshot } from './views';
export { resultRows, rowsToCsv } from './downloads';
