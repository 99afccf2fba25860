/**
 * A BOM grounder over a small invented parts list, with meaning from a scripted table of
 * similarities (any pair not listed scores 0.1), so a test checks the grounder's decisions, not
 * the embedding model.
 */
import { Grounder, partNames, Vocabulary, type Meaning } from '../../flows/bom/activities/terms';

export function scriptedMeaning(pairs: Record<string, number>): Meaning {
  const score = (a: string, b: string) => (a === b ? 1 : (pairs[`${a}|${b}`] ?? pairs[`${b}|${a}`] ?? 0.1));
  return { similarities: async (text, others) => others.map((o) => score(text, o)) };
}

/** A grounder over `items` ([description, category] pairs) with the scripted similarities. */
export function scriptedGrounder(items: ReadonlyArray<[string, string]>, pairs: Record<string, number>): Grounder {
  const descriptions = items.map(([d]) => d);
  const categories = [...new Set(items.map(([, c]) => c))];
  const vocabulary = new Vocabulary([
    { column: 'item_master.item_description', values: descriptions },
    { column: 'item_master.category', values: categories },
  ]);
  const contexts = new Map<string, string | null>(items.map(([d, c]) => [d, c]));
  return new Grounder(vocabulary, scriptedMeaning(pairs), partNames([...descriptions, ...categories], contexts));
}
