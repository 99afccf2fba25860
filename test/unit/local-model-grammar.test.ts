/**
 * Every model task's reply schema, sent the way the OpenAI adapter sends it (`response_format`
 * json_schema) and read the way the local model server reads it (`toGrammarSchema`), must become a
 * grammar for node-llama-cpp. A schema the grammar cannot take is answered without one: a small
 * model then writes JSON of any shape, leaves out required fields, and no repair helps (the EADS
 * questions were answered that way until their string bounds were fitted to the grammar).
 *
 * Only node-llama-cpp's native binding is loaded (the grammar is parsed by llama.cpp), no model.
 */
import type { Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { toOpenAISchema } from '../../backends/model/openai';
import { focusTermsSchema, explanationSchema } from '../../flows/bom/activities';
import { discoverFromPrpFlow, searchPlanSchema, validationVerdictSchema } from '../../flows/discovery/contract';
import { extractTargetSchema } from '../../flows/discovery/prp-schema';
import { eadsSettings, orchestrationReply, refinementReply, surrogateAnswerReply } from '../../flows/eads/activities';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { questionDraftSchema } from '../../flows/eads/contract';
import { modelTasksOf } from '../../flows/lib';
import { summarySchema } from '../../flows/platform/activities';
import { interviewQuestionReply, problemFormulationReply, qualityReply } from '../../flows/proposal/activities';
import {
  dataCollectionPlanSchema,
  methodologyRecommendationSchema,
  researchObjectivesSchema,
} from '../../flows/proposal/contract';
import { FLOWS } from '../../flows/registry';
import type { ModelTaskId } from '../../contracts/model-tasks';
import { toGrammarSchema } from '../../workers/local-model-server';

/**
 * The schemas each task sends. Tasks whose schema is built from data get every shape they are
 * built for here: the discovery plan from the example PRP's columns, the EADS refinement from
 * every EADS of the library.
 */
function schemasByTask(): Partial<Record<ModelTaskId, Array<[string, z.ZodType]>>> {
  const library = cachedLibrary(eadsSettings().libraryDirs)();
  const columns = extractTargetSchema(String(discoverFromPrpFlow.examples[0]!.prp)).map((c) => c.name);
  return {
    'platform.summarize': [['', summarySchema]],
    'bom.focus_terms': [['', focusTermsSchema]],
    'bom.explain': [['', explanationSchema]],
    'discovery.plan': [['example PRP', searchPlanSchema(columns)]],
    'discovery.validate': [['', validationVerdictSchema]],
    'eads.orchestrate': [['', orchestrationReply]],
    'eads.question': [['', questionDraftSchema]],
    'eads.surrogate_answer': [['', surrogateAnswerReply]],
    'eads.refine': library.eads.map((e) => [e.id, refinementReply(e.example)] as [string, z.ZodType]),
    'proposal.interview_question': [['', interviewQuestionReply]],
    'proposal.problem_formulation': [['', problemFormulationReply]],
    'proposal.objectives': [['', researchObjectivesSchema]],
    'proposal.methodology': [['', methodologyRecommendationSchema]],
    'proposal.data_collection': [['', dataCollectionPlanSchema]],
    'proposal.quality_control': [['', qualityReply]],
  };
}

describe('local model server: a grammar for every model task schema', () => {
  let llama: Llama;
  beforeAll(async () => {
    const { getLlama } = await import('node-llama-cpp');
    llama = await getLlama({ gpu: false, build: 'never' });
  }, 60_000);
  afterAll(() => llama?.dispose());

  it('lists a schema for every task the registry declares', () => {
    expect(Object.keys(schemasByTask()).sort()).toEqual([...modelTasksOf(FLOWS)].sort());
  });

  it('turns each schema into a grammar llama.cpp accepts', async () => {
    const failed: string[] = [];
    let built = 0;
    for (const [task, schemas] of Object.entries(schemasByTask())) {
      expect(schemas.length, task).toBeGreaterThan(0);
      for (const [variant, schema] of schemas) {
        const grammarSchema = toGrammarSchema(toOpenAISchema(schema));
        try {
          await llama.createGrammarForJsonSchema(grammarSchema as never);
          built++;
        } catch (err) {
          failed.push(`${task}${variant ? ` (${variant})` : ''}: ${(err as Error).message.split('\n')[0]}`);
        }
      }
    }
    expect(failed).toEqual([]);
    expect(built).toBeGreaterThan(15);
  }, 60_000);

  it('offers null for optional properties and leaves bounds llama.cpp cannot repeat to the client', async () => {
    const grammarSchema = toGrammarSchema(toOpenAISchema(questionDraftSchema)) as {
      properties: Record<string, unknown>;
    };
    // node-llama-cpp writes every property; null is the short way to leave an optional one out.
    expect(grammarSchema.properties.choices).toEqual({
      oneOf: [{ type: 'array', maxItems: 30, items: { type: 'string', minLength: 1 } }, { type: 'null' }],
    });
    expect(grammarSchema.properties.targets).toEqual({
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: { type: 'string' },
    });
    // maxLength 2000 made llama.cpp refuse the whole grammar; the client's zod check keeps it.
    expect(grammarSchema.properties.question).toEqual({ type: 'string', minLength: 1 });
    const grammar = await llama.createGrammarForJsonSchema(grammarSchema as never);
    const reply = {
      question: 'What do you make?',
      question_type: 'text',
      table_template: null,
      choices: null,
      choice_labels: null,
      help_text: 'Say it in words.',
      targets: ['product'],
    };
    expect(grammar.parse(JSON.stringify(reply))).toEqual(reply);
  });
});
