/**
 * The BOM flow's model tasks and the sections of their prompts (see contracts/model-tasks.ts).
 */
export interface BomFocusTermsSections {
  question: string;
}

export interface BomExplainSections {
  question: string;
  result: {
    method: string;
    search_terms: string[];
    terms_required: 'any' | 'all';
    rows_are: 'top_level_items' | 'boms_using_the_parts';
    total_rows: number;
    shown_rows: number;
  };
  /** Sample rows, each as its non-empty values joined with ` | `. */
  rows: string[];
}

/** Every task id this flow's prompts carry (`Task: <id>`); each has a stand-in rule in ./standin.ts. */
export const ModelTask = {
  bomFocusTerms: 'bom.focus_terms',
  bomExplain: 'bom.explain',
} as const;

declare module '../../contracts/model-tasks' {
  interface ModelTaskSections {
    'bom.focus_terms': BomFocusTermsSections;
    'bom.explain': BomExplainSections;
  }
}
