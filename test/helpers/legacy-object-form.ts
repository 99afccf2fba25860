/**
 * Activities that took positional arguments in the previous release and one input object since: the
 * object form of their positional arguments, stated here independently of the activities' own
 * converters (test/unit/legacy-positional-args.test.ts checks the converters against it).
 */
/** The object form of each changed activity's positional arguments, stated here independently of the converters. */
export const OBJECT_FORM: Record<string, (args: any[]) => object> = {
  searchPlatformDocs: ([topic, limit]) => ({ topic, limit }),
  queryComponents: ([topic, limit]) => ({ topic, limit }),
  summarizeFindings: ([topic, documents, rows]) => ({ topic, documents, rows }),
  loadPursuitPlan: ([eadsId]) => ({ eadsId }),
  describeFixture: ([fixtureId]) => ({ fixtureId }),
  searchLiterature: ([profile, focusTerms]) => ({ profile, focusTerms }),
  defineObjectives: ([profile, problem]) => ({ profile, problem }),
  recommendMethodology: ([profile, problem, objectives]) => ({ profile, problem, objectives }),
  planDataCollection: ([profile, objectives, methodology]) => ({ profile, objectives, methodology }),
  discoveryPlanSearch: ([prp, targetSchema]) => ({ prp, targetSchema }),
  discoverySearchCatalog: ([query, limit]) => ({ query, limit }),
  discoveryValidateCandidate: ([step, targetColumns, candidate]) => ({ step, targetColumns, candidate }),
};
