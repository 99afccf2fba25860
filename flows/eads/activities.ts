/**
 * The EADS interview's steps. The library and the fixtures are read here (never by workflow
 * code); the workflows get back only what they need: a small catalog, one pursuit plan, and
 * per question the draft, the answer and the refinement.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import path from 'node:path';
import { z } from 'zod';
import type { Backends } from '../../backends';
import { zeroUsage, type TokenUsage } from '../../contracts/common';
import {
  questionDraftSchema,
  type AskedQuestion,
  type EadsCatalogEntry,
  type OrchestratorRequest,
  type PursuitContext,
  type PursuitPlan,
  type QuestionDraft,
  type Recommendation,
} from './contract';
import {
  choiceFromPlainAnswer,
  choiceLabel,
  computeCompleteness,
  eligibleEads,
  refinementSchema,
  topicRank,
  UNDETERMINED,
  type EadsField,
  type JsonObject,
} from '../../domain/eads-structure';
import {
  cachedLibrary,
  catalogEntry,
  EadsLibraryError,
  firstSentence,
  loadFixture,
  pursuitPlan,
  type EadsLibrary,
  type Fixture,
} from './activities/library';
import { mapHeaders, rankTexts } from '../../domain/text-match';
import { ModelTask } from './model-tasks';
import { acceptingLegacyPositionalArgs, askModel } from '../lib/activities/support';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import { interviewerBrief } from './activities/interviewers';
import { FailureType } from '../../contracts/failures';

export { PROJECT_ROOT };

export interface EadsSettings {
  libraryDirs: string[];
  /** Where surrogate firms are looked up, in order (EADS_FIXTURES_DIR, `:`-separated). */
  fixturesDirs: string[];
}

export function eadsSettings(config?: { EADS_LIBRARY_DIRS?: string; EADS_FIXTURES_DIR?: string }): EadsSettings {
  const dirs = (config?.EADS_LIBRARY_DIRS ?? 'data/eads').split(path.delimiter).filter(Boolean);
  return {
    libraryDirs: dirs.map((d) => path.resolve(PROJECT_ROOT, d)),
    fixturesDirs: (config?.EADS_FIXTURES_DIR ?? 'data/eads-fixtures')
      .split(path.delimiter)
      .filter(Boolean)
      .map((d) => path.resolve(PROJECT_ROOT, d)),
  };
}

/** The eads.orchestrate reply: the next EADS to pursue. */
export const orchestrationReply = z.object({
  eads_id: z.string(),
  rationale: z.string().min(1).max(1000),
  interviewer_type: z.string(),
  priority: z.number().min(0).max(1),
});

/** The eads.surrogate_answer reply. */
export const surrogateAnswerReply = z.object({ answer: z.string().trim().min(1).max(8000) });

/** The eads.refine reply for an EADS: the fields the answer settles, shaped like its example. */
export function refinementReply(example: JsonObject) {
  return z.object({
    update: refinementSchema(example),
    commit_notes: z.string().max(2000),
    exhausted: z.boolean(),
  });
}

/** A broken library or fixture will not heal by retrying: fail at once, naming file and field. */
function libraryFailure(err: unknown): unknown {
  if (err instanceof EadsLibraryError) {
    return ApplicationFailure.create({
      message: err.message,
      type: FailureType.EadsLibraryInvalid,
      nonRetryable: true,
      details: [{ file: err.file, field: err.field }],
    });
  }
  return err;
}

function withLibrary<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    throw libraryFailure(err);
  }
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What the model sees of a field: enough to ask or read it, with long comments cut. */
function fieldForPrompt(field: EadsField, withDefinitions: boolean) {
  return {
    name: field.name,
    kind: field.kind,
    derived: field.derived,
    ...(field.suggestedQuestion ? { question: field.suggestedQuestion } : {}),
    comment: truncate(
      field.comment
        .replace(/^\s*\d+\)\s.*$/gm, '')
        .replace(/\s+/g, ' ')
        .trim(),
      240,
    ),
    ...(field.columns ? { columns: field.columns } : {}),
    ...(field.choices
      ? {
          choices: withDefinitions
            ? field.choices.map((c) => ({ key: c.key, definition: truncate(c.definition, 200) }))
            : field.choices.map((c) => c.key),
        }
      : {}),
    ...(field.multiple ? { multiple: true } : {}),
  };
}

export function tableTemplate(columns: Array<{ name: string }>): string {
  return `| ${columns.map((c) => c.name).join(' | ')} |\n|${columns.map(() => ' --- |').join('')}`;
}

/** Facts and tables of a fixture ranked by how well they match a question (retrieval before the model call). */
export function rankFixture(
  fixture: Fixture,
  question: Pick<QuestionDraft, 'question' | 'targets' | 'table_template'>,
) {
  // By meaning as far as words allow: stems and related words ("stage" ~ "step"), rare words weighing more.
  const query = `${question.question} ${question.targets.map((t) => t.replace(/[-?]+/g, ' ')).join(' ')}`;
  const byAbout = rankTexts(
    query,
    fixture.facts.map((f) => f.about),
  );
  const byAnswer = rankTexts(
    query,
    fixture.facts.map((f) => f.answer),
  );
  const facts = fixture.facts
    .map((fact, i) => ({ fact, score: 2 * byAbout[i] + byAnswer[i] }))
    .sort((a, b) => b.score - a.score);
  const wanted = (question.table_template?.split('\n')[0] ?? '')
    .split('|')
    .map((c) => c.trim())
    .filter(Boolean);
  const byName = rankTexts(
    query,
    fixture.tables.map((t) => t.name),
  );
  const tables = fixture.tables
    .map((table, i) => {
      const columns = [...new Set(table.rows.flatMap((r) => Object.keys(r)))];
      const matched = wanted.length ? mapHeaders(columns, wanted).filter((h) => h >= 0).length : 0;
      return { table, matched, score: 3 * matched + byName[i] };
    })
    .sort((a, b) => b.score - a.score);
  return { facts, tables };
}

/** At most this many facts of a surrogate firm go into one answer's prompt. */
const MAX_SURROGATE_FACTS = 24;

const sameWords = (a: string, b: string) =>
  a.toLowerCase().replace(/\s+/g, ' ').trim() === b.toLowerCase().replace(/\s+/g, ' ').trim();

/** "Flow shop: every job … in the same order" for each of `keys`, from the field's choices. */
function choiceLabels(field: EadsField, keys: string[]): string[] {
  const all = (field.choices ?? []).map((c) => c.key);
  return keys.map((key) => {
    const c = field.choices?.find((x) => x.key === key);
    const label = choiceLabel(key, all);
    return truncate(c?.definition ? `${label}: ${c.definition}` : label, 400);
  });
}

/** A question already asked, put another way: a choice with its options numbered, else a plainer request. */
function askedAnotherWay(question: QuestionDraft, field: EadsField | undefined): Partial<QuestionDraft> {
  if (question.question_type === 'choice' && field?.choices?.length) {
    const keys = field.choices.map((c) => c.key);
    const labels = choiceLabels(field, keys);
    return {
      question: `To put it another way, which of these comes closest? ${labels.map((l, i) => `${i + 1}) ${l}`).join(' ')}`,
      choices: keys,
      choice_labels: labels,
      help_text: 'A number is enough; say so if none fits.',
    };
  }
  const what = field ? field.name.replace(/\?$/, '').replace(/-+/g, ' ') : 'this';
  return { question: `To put it another way: what can you tell us about the ${what}? ${question.question}` };
}

/**
 * The choice a question asked for, settled by code where a model must not decide: a plain answer
 * (a number, the key, the choice's name) is taken as it is, whatever the model made of it; a
 * choice still open after it was asked twice is recorded as UNDETERMINED rather than left to look
 * unasked; and every choice taken is confirmed in the notes in words ("Understood: Flow shop —
 * …"), so the person sees what was understood.
 */
function settleChoice(
  fields: EadsField[],
  args: { question: AskedQuestion; answer: string; asked: AskedSummary[] },
  update: Record<string, unknown>,
): { notes: string; unread: boolean } {
  const notes: string[] = [];
  let unread = false;
  for (const name of args.question.targets) {
    const field = fields.find((f) => f.name === name);
    if (!field?.choices?.length || field.multiple || field.derived) continue;
    const keys = field.choices.map((c) => c.key);
    const plain = choiceFromPlainAnswer(args.answer, field.choices);
    if (field.kind === 'boolean') {
      if (plain && update[name] === undefined) update[name] = plain === 'yes';
      if (typeof update[name] === 'boolean') notes.push(`Understood: ${update[name] ? 'yes' : 'no'} to "${name}".`);
      continue;
    }
    if (field.kind !== 'text') continue;
    if (plain) update[name] = plain;
    const value = update[name];
    if (typeof value === 'string' && keys.includes(value)) {
      const c = field.choices.find((x) => x.key === value)!;
      notes.push(
        `Understood: ${choiceLabel(value, keys)}${c.definition ? ` — ${c.definition.replace(/\.$/, '')}` : ''}.`,
      );
      continue;
    }
    // Not a choice (a model's free text) or nothing: open, and asked again once in other words.
    delete update[name];
    const askedBefore = args.asked.filter((a) => a.targets.includes(name)).length;
    if (askedBefore >= 1) {
      update[name] = UNDETERMINED;
      notes.push(`Still not clear after asking again: "${name}" is recorded as undetermined.`);
    } else {
      unread = true;
      notes.push(`The answer did not say which choice fits "${name}"; the next question spells the choices out.`);
    }
  }
  return { notes: notes.join(' '), unread };
}

export interface OrchestratorArgs extends OrchestratorRequest {
  /** After this many failed attempts of the model call, the deterministic order decides. */
  fallbackAfterAttempts?: number;
}

export interface AskedSummary {
  id: string;
  targets: string[];
  filled: string[];
  question: string;
  /** False for a question not charged (its table answer could not be read): it is not an attempt. */
  charged?: boolean;
}

/** The EADS a step is about (its id in the library). */
export interface EadsRef {
  eadsId: string;
}

/** A surrogate fixture, by its id (a file in the fixtures directories). */
export interface FixtureRef {
  fixtureId: string;
}

export function createEadsActivities({ model, config }: Backends) {
  const settings = eadsSettings(config);
  const library: () => EadsLibrary = cachedLibrary(settings.libraryDirs);
  const requireEads = (id: string) =>
    withLibrary(() => {
      const lib = library();
      const found = lib.get(id);
      if (!found)
        throw ApplicationFailure.create({
          message: `unknown EADS "${id}"; the library has ${lib.eads.map((e) => e.id).join(', ')}`,
          type: FailureType.UnknownEads,
          nonRetryable: true,
        });
      return found;
    });
  const fixture = (id: string) => withLibrary(() => loadFixture(settings.fixturesDirs, id));

  return {
    /** The library as the interview keeps it: ids, names, objectives, prerequisites. */
    async loadEadsCatalog(): Promise<EadsCatalogEntry[]> {
      return withLibrary(() => library().eads.map(catalogEntry));
    },

    /** Everything one pursuit needs of its EADS: fields, instructions, example structure. */
    loadPursuitPlan: acceptingLegacyPositionalArgs(
      async ({ eadsId }: EadsRef): Promise<PursuitPlan> => pursuitPlan(requireEads(eadsId)),
      (eadsId: string): EadsRef => ({ eadsId }),
    ),

    /** Checks a surrogate fixture exists and is valid before the interview starts. */
    describeFixture: acceptingLegacyPositionalArgs(
      async ({ fixtureId }: FixtureRef): Promise<{ fixtureId: string; firm: string; interviewee: string }> => {
        const f = fixture(fixtureId);
        return { fixtureId, firm: f.firm, interviewee: f.interviewee };
      },
      (fixtureId: string): FixtureRef => ({ fixtureId }),
    ),

    /**
     * The orchestrator: which EADS next. Eligibility (prerequisites, applies-when, not yet
     * pursued) comes from the library; the model picks among the eligible ones with a rationale.
     * A pick outside them, or a model that keeps failing, falls back to the deterministic order.
     */
    async chooseNextEads(args: OrchestratorArgs): Promise<{ recommendation: Recommendation; usage: TokenUsage }> {
      const lib = withLibrary(() => library());
      const candidates = eligibleEads(
        lib.eads.map((e) => ({ id: e.id, prerequisites: e.prerequisites, appliesWhen: e.appliesWhen })),
        args.pursued,
        args.facts,
      );
      const interviewerOf = (id: string) => lib.get(id)?.interviewer ?? null;
      if (candidates.length === 0) {
        return {
          recommendation: {
            eads_id: null,
            rationale:
              'Every EADS whose prerequisites and conditions hold has been pursued: the interview is exhausted.',
            interviewer_type: null,
            priority: 0,
            source: 'none',
            exhausted: true,
            candidates,
          },
          usage: zeroUsage(),
        };
      }
      const fallback = (why: string): Recommendation => ({
        eads_id: candidates[0],
        rationale: `${why}; fallback order (prerequisites first, then process → data → resources → optimality) gives ${candidates[0]}.`,
        interviewer_type: interviewerOf(candidates[0]),
        priority: 1,
        source: 'fallback',
        exhausted: false,
        candidates,
      });
      const schema = orchestrationReply;
      try {
        const { data, usage } = await askModel(model, {
          task: ModelTask.eadsOrchestrate,
          instructions:
            'You direct a scheduling interview. Pick the next EADS to pursue from ' +
            '<candidates> (all are eligible) given <conversation>. Topic order is process, ' +
            'data, resources, optimality. Answer with its eads_id, a one-sentence rationale, ' +
            'its interviewer type and a priority 0..1.',
          sections: {
            conversation: args.conversation,
            candidates: candidates.map((id) => {
              const e = lib.get(id)!;
              return {
                eads_id: id,
                name: e.name,
                interviewer: e.interviewer,
                objective: firstSentence(e.objective, 200),
                topic_rank: topicRank(id),
              };
            }),
          },
          schema,
        });
        if (!candidates.includes(data.eads_id))
          return { recommendation: fallback(`the model picked "${data.eads_id}", which is not eligible`), usage };
        return {
          recommendation: {
            eads_id: data.eads_id,
            rationale: data.rationale,
            interviewer_type: interviewerOf(data.eads_id),
            priority: data.priority,
            source: 'model',
            exhausted: false,
            candidates,
          },
          usage,
        };
      } catch (err) {
        const failure = err as ApplicationFailure;
        const attempt = Context.current().info.attempt;
        // Transient faults get Temporal's retries first; a permanent fault or the last allowed attempt falls back.
        if (failure?.nonRetryable || attempt >= (args.fallbackAfterAttempts ?? 3)) {
          return {
            recommendation: fallback(
              `the orchestrator model failed (${truncate(failure?.message ?? String(err), 160)})`,
            ),
            usage: zeroUsage(),
          };
        }
        throw err;
      }
    },

    /** The interviewer: the next question, from the EADS and what is filled so far. */
    async generateEadsQuestion(args: {
      eadsId: string;
      /** The interviewer type that asks (from the EADS); recorded in the activity input for history. */
      interviewer?: string;
      dataStructure: JsonObject;
      asked: AskedSummary[];
      context: PursuitContext;
    }): Promise<{ question: QuestionDraft; interviewer: string; usage: TokenUsage }> {
      const eads = requireEads(args.eadsId);
      const interviewer = interviewerBrief(eads.interviewer);
      const { remainingFields } = computeCompleteness(
        eads.fields.map((f) => f.name),
        args.dataStructure,
      );
      const remaining = eads.fields.filter((f) => remainingFields.includes(f.name));
      const { data, usage } = await askModel(model, {
        task: ModelTask.eadsQuestion,
        instructions:
          'You interview the owner of a firm about scheduling, filling the EADS below, as ' +
          'the interviewer described in <interviewer>: follow its instructions and ' +
          'question_style. Ask ONE clear question for the remaining fields (never for ' +
          'derived ones unless nothing else is left, never again for a field asked twice; ' +
          'questions marked charged:false do not count). question_type: "table" for table ' +
          'fields (give table_template as a markdown header row), "choice" for fields with ' +
          'choices (list them), else "text". Add a short help_text. targets = the fields ' +
          'the question fills.',
        sections: {
          interviewer: {
            type: interviewer.type,
            role: interviewer.role,
            instructions: interviewer.instructions,
            question_style: interviewer.question_style,
            example: interviewer.example,
          },
          // The whole objective matters for the opening question (it may quote it); later a sentence is enough.
          eads: {
            id: eads.id,
            name: eads.name,
            objective: args.asked.length === 0 ? truncate(eads.objective, 900) : firstSentence(eads.objective, 200),
          },
          // Derived fields are not asked about: their name is enough.
          // Choices with their definitions, so a question asked again can spell them out.
          remaining_fields: remaining.map((f) =>
            f.derived ? { name: f.name, kind: f.kind, derived: true } : fieldForPrompt(f, !f.multiple),
          ),
          asked: args.asked.slice(-12).map((a) => ({
            targets: a.targets,
            filled: a.filled,
            question: truncate(a.question, 160),
            ...(a.charged === false ? { charged: false } : {}),
          })),
          filled_fields: Object.keys(args.dataStructure).filter((k) => k !== 'EADS-id'),
          context: args.context,
        },
        schema: questionDraftSchema,
      });
      // Keep the draft consistent with the EADS whatever the model said.
      const known = new Set(eads.fields.map((f) => f.name));
      let targets = data.targets.filter((t) => known.has(t));
      if (targets.length === 0) targets = remaining.length ? [remaining[0].name] : [eads.fields[0].name];
      const main = eads.fields.find((f) => f.name === targets[0]);
      const question: QuestionDraft = { ...data, targets };
      if (question.question_type === 'table' && !question.table_template && main?.columns)
        question.table_template = tableTemplate(main.columns);
      if (question.question_type === 'choice' && !question.choices?.length && main?.choices)
        question.choices = main.choices.map((c) => c.key);
      if (question.question_type === 'choice' && main?.choices?.length)
        question.choice_labels = choiceLabels(main, question.choices ?? []);
      else delete question.choice_labels;
      // The same words again get the same answer: a question asked before is put another way.
      if (args.asked.some((a) => sameWords(a.question, question.question)))
        Object.assign(question, askedAnotherWay(question, main));
      return { question, interviewer: interviewer.type, usage };
    },

    /** The surrogate expert: answers as the firm's owner, from the fixture's facts and tables. */
    async answerAsSurrogate(args: {
      fixtureId: string;
      eadsId: string;
      question: AskedQuestion;
    }): Promise<{ answer: string; usage: TokenUsage }> {
      const f = fixture(args.fixtureId);
      const { facts, tables } = rankFixture(f, args.question);
      const { data, usage } = await askModel(model, {
        task: ModelTask.eadsSurrogateAnswer,
        instructions:
          'You are the interviewee described in <firm>. Answer <question> truthfully and ' +
          'briefly from <facts> and <tables> only; say you are not sure when they do not ' +
          "cover it. For a table question reply with a markdown table using the template's " +
          'columns (several values in a cell separated by commas; durations as "<number> ' +
          '<unit>"). For a list, separate items with commas.',
        sections: {
          firm: { name: f.firm, interviewee: f.interviewee, about: f.about },
          question: {
            question: args.question.question,
            question_type: args.question.question_type,
            table_template: args.question.table_template,
            choices: args.question.choices,
            // The choices in words, as a person sees them: what the question asks is among them.
            ...(args.question.choice_labels?.length ? { choice_labels: args.question.choice_labels } : {}),
            targets: args.question.targets,
          },
          // Retrieval first, to keep the prompt small: the best table for a table question, else the best facts.
          // A table counts when it has at least two of the template's columns (under any name).
          // Every fact (a firm's briefing is short), the likeliest first: words shared with the
          // question are no reliable guide to which fact answers it ("working hours" is not "how
          // work moves"), so the model judges by meaning among them all.
          facts:
            args.question.question_type === 'table' && tables[0]?.matched >= 2
              ? []
              : facts.slice(0, MAX_SURROGATE_FACTS).map((x) => x.fact),
          tables:
            args.question.question_type === 'table'
              ? tables
                  .slice(0, 1)
                  .filter((x) => x.matched >= 2)
                  .map((x) => x.table)
              : [],
        },
        schema: surrogateAnswerReply,
      });
      return { answer: data.answer, usage };
    },

    /**
     * The data-structure refinement: the answer turned into an update of the EADS's fields,
     * validated against the example structure (a non-conforming reply goes back to the model
     * with the error, then Temporal retries).
     */
    async refineEadsStructure(args: {
      eadsId: string;
      question: AskedQuestion;
      answer: string;
      dataStructure: JsonObject;
      asked: AskedSummary[];
      context: PursuitContext;
    }): Promise<{
      update: Record<string, unknown>;
      commitNotes: string;
      exhausted: boolean;
      unreadTable: boolean;
      /** A choice question whose answer named no choice, asked for the first time: not charged, asked again with the choices spelled out. */
      unreadChoice?: boolean;
      usage: TokenUsage;
    }> {
      const eads = requireEads(args.eadsId);
      const { remainingFields } = computeCompleteness(
        eads.fields.map((f) => f.name),
        args.dataStructure,
      );
      // Tags derived from the answers (the troubles a firm names) gather over the whole pursuit: a
      // later answer may name one the first did not, so they stay in the prompt once filled.
      const gathers = (f: EadsField) => f.derived && f.kind === 'list' && !!f.choices?.length;
      const relevant = eads.fields.filter(
        (f) => remainingFields.includes(f.name) || args.question.targets.includes(f.name) || gathers(f),
      );
      // Full detail for what the question targets and what must be derived; the rest by name and kind.
      const detailed = (f: EadsField) => args.question.targets.includes(f.name) || f.derived;
      const needsStructure = relevant.some((f) => f.derived);
      const attempts: Record<string, number> = {};
      for (const a of args.asked.filter((x) => x.charged !== false))
        for (const t of a.targets) attempts[t] = (attempts[t] ?? 0) + 1;
      const schema = refinementReply(eads.example);
      const { data, usage } = await askModel(model, {
        task: ModelTask.eadsRefine,
        instructions:
          "Turn the interviewee's <answer> to <question> into a DATA-STRUCTURE-REFINEMENT: " +
          '"update" holds only the fields the answer settles (targets, plus derived fields ' +
          'you can infer), shaped exactly like the EADS example (same keys and value types; ' +
          'choices by their key). Leave out what the answer does not give. commit_notes: ' +
          'one sentence on what changed. exhausted: true when the interviewee has nothing ' +
          'more to add or every remaining field was asked twice without an answer.',
        sections: {
          eads: { id: eads.id, name: eads.name },
          question: {
            question: args.question.question,
            question_type: args.question.question_type,
            targets: args.question.targets,
            table_template: args.question.table_template,
            choices: args.question.choices,
          },
          answer: args.answer,
          fields: relevant.map((f) =>
            detailed(f)
              ? fieldForPrompt(f, true)
              : {
                  name: f.name,
                  kind: f.kind,
                  // What the other fields ask, so an answer to one of them is not read as this one's.
                  ...(f.suggestedQuestion ? { question: truncate(f.suggestedQuestion, 240) } : {}),
                  ...(f.columns ? { columns: f.columns } : {}),
                },
          ),
          attempts,
          // Derived fields may be computed from what is already filled (e.g. all resources of the steps).
          data_structure: needsStructure
            ? args.dataStructure
            : Object.fromEntries(Object.keys(args.dataStructure).map((k) => [k, '(filled)'])),
          context: args.context,
        },
        schema,
      });
      const update: Record<string, unknown> = Object.fromEntries(
        Object.entries(data.update).filter(([, v]) => v !== undefined),
      );
      // A gathered tag is never lost to a later answer that names only new ones: the update is
      // merged by replacement, so it carries the earlier tags too, in the choices' order.
      for (const f of eads.fields.filter(gathers)) {
        const before = args.dataStructure[f.name];
        const now = update[f.name];
        if (!Array.isArray(before) || !Array.isArray(now)) continue;
        const keys = (f.choices ?? []).map((c) => c.key);
        const all = new Set<unknown>([...before, ...now]);
        update[f.name] = [...keys.filter((k) => all.has(k)), ...[...all].filter((v) => !keys.includes(v as string))];
      }
      // Judged by code, not the model: a table question answered with rows (pipes or tabs) of which
      // no targeted table field could be read. The pursuit then does not charge the question.
      const tableTargets = eads.fields
        .filter((f) => f.kind === 'table' && args.question.targets.includes(f.name))
        .map((f) => f.name);
      const unreadTable =
        tableTargets.length > 0 && tableTargets.every((t) => update[t] === undefined) && /\||\t/.test(args.answer);
      const choice = settleChoice(eads.fields, args, update);
      const commitNotes = [choice.notes, data.commit_notes].filter(Boolean).join(' ');
      return {
        update,
        commitNotes,
        exhausted: data.exhausted && !choice.unread,
        unreadTable,
        ...(choice.unread ? { unreadChoice: true } : {}),
        usage,
      };
    },
  };
}

export type EadsActivities = ReturnType<typeof createEadsActivities>;
