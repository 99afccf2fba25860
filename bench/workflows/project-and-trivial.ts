/** Bench-only bundle entry: the project's workflows plus the trivial one, as the project's worker would load them. */
export * from '../../flows/workflows';
export * from './trivial-activities';
