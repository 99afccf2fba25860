/**
 * Every failure type the project raises or matches, in one place: the `type` of an
 * ApplicationFailure, the names in `nonRetryableErrorTypes`, the types clients check. The values
 * are part of the contract (they are in recorded histories, in clients and in the Python solver
 * worker, which raises `ScheduleProblemInvalid`): rename a key freely, never a value.
 */
export const FailureType = {
  /** A flow's start input, an update or a signal argument failed validation. */
  InvalidInput: 'InvalidInput',

  // Backends: retryable "unavailable", permanent "rejected/invalid".
  ModelUnavailable: 'ModelUnavailable',
  ModelRequestRejected: 'ModelRequestRejected',
  ModelOutputInvalid: 'ModelOutputInvalid',
  WarehouseUnavailable: 'WarehouseUnavailable',
  WarehouseQueryInvalid: 'WarehouseQueryInvalid',
  WarehouseCostCapExceeded: 'WarehouseCostCapExceeded',
  SearchUnavailable: 'SearchUnavailable',
  SearchRequestRejected: 'SearchRequestRejected',
  SearchCollectionUnknown: 'SearchCollectionUnknown',

  // BOM and discovery.
  BomSqlRejected: 'BomSqlRejected',
  TargetSchemaMissing: 'TargetSchemaMissing',

  // EADS interviews and pursuits.
  EadsLibraryInvalid: 'EadsLibraryInvalid',
  UnknownEads: 'UnknownEads',
  InterviewEnded: 'InterviewEnded',
  InterviewAlreadyRunning: 'InterviewAlreadyRunning',
  PursuitEnded: 'PursuitEnded',

  // Schedules.
  ScheduleProblemInvalid: 'ScheduleProblemInvalid',
  ScheduleModelError: 'ScheduleModelError',
  SolverFailed: 'SolverFailed',

  /** A proposal stage failed: the run fails, its partial result (status `error`) in the details. */
  ProposalStageFailed: 'ProposalStageFailed',

  // Research proposal interview and review (update validators).
  NoOpenQuestion: 'NoOpenQuestion',
  StaleAnswer: 'StaleAnswer',
  InvalidAnswer: 'InvalidAnswer',
  NoReviewOpen: 'NoReviewOpen',
  InvalidReview: 'InvalidReview',
  ReviewLimit: 'ReviewLimit',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];
