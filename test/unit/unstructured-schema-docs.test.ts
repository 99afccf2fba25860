/**
 * Schema documentation as unstructured documents (markdown in a Vertex AI Search data store with
 * content): the results' derived snippets become text, and the BOM schema search takes a column
 * as a hint where a line of that text names it together with a term of the question.
 */
import { describe, expect, it } from 'vitest';
import { columnsNamedWithTerms, createBomActivities } from '../../flows/bom/activities';
import type { Backends } from '../../backends';
import type { SearchBackend } from '../../backends/search/types';
import { hitData } from '../../backends/search/vertex-data';
import { inActivityEnvironment } from '../helpers/activity-env';

const MARKDOWN = [
  '# item_master',
  'The `item_master.category` column groups parts: capacitors are CAPACITORS, resistors RESISTORS.',
  'Every part has a description in item_master.item_description, e.g. "Tantalum capacitor 10uF".',
  'Suppliers are in supplier_catalog.supplier_name.',
].join('\n');

describe('unstructured schema documentation', () => {
  it('reads the text of an unstructured result from its snippets and extractive answers', () => {
    const data = hitData({
      derivedStructData: {
        fields: {
          title: { stringValue: 'BOM schema' },
          link: { stringValue: 'gs://bucket/bom-schema.md' },
          snippets: {
            listValue: {
              values: [{ structValue: { fields: { snippet: { stringValue: 'The <b>category</b> column' } } } }],
            },
          },
          extractive_answers: {
            listValue: { values: [{ structValue: { fields: { content: { stringValue: MARKDOWN } } } }] },
          },
        },
      },
    });
    expect(data.title).toBe('BOM schema');
    expect(data.text).toContain('`item_master.category` column groups parts');
    expect(data.text).toContain('The category column');
  });

  it('ties a term to the columns named on the same line', () => {
    expect(columnsNamedWithTerms(MARKDOWN, ['capacitor'])).toEqual([
      'item_master.category',
      'item_master.item_description',
    ]);
    expect(columnsNamedWithTerms(MARKDOWN, ['suppliers'])).toEqual(['supplier_catalog.supplier_name']);
    expect(columnsNamedWithTerms(MARKDOWN, ['oscillator'])).toEqual([]);
  });

  it('gives schema hints from unstructured results in the BOM flow step', async () => {
    const search: SearchBackend = {
      name: 'vertex',
      search: async () => ({
        totalSize: 1,
        hits: [{ id: 'bom-schema-md', score: 1, data: { title: 'BOM schema', text: MARKDOWN } }],
      }),
    };
    const { searchBomSchema } = inActivityEnvironment(createBomActivities({ search } as unknown as Backends));
    const phrase = await searchBomSchema({ focusTerms: ['tantalum capacitors'] });
    expect(phrase.schema_hints).toEqual(['item_master.item_description']);
    const byPart = await searchBomSchema({ focusTerms: ['capacitors'] });
    expect(byPart.schema_hints).toEqual(['item_master.category', 'item_master.item_description']);
    expect(byPart.documents).toBe(1);
  });
});
