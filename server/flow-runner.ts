/**
 * What the execute route needs of the Temporal client library. It is loaded with the client, on
 * first use (`TemporalAccess.runner()` in server/temporal.ts): a control plane that only serves
 * discovery never loads it (~30 MB of protobuf definitions).
 */
export { isGrpcCancelledError, WorkflowFailedError } from '@temporalio/client';
export { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
export { startFlow, webUiLink } from '../access/flow-client';
