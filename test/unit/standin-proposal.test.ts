/**
 * The proposal stand-in on profiles written for this test (none is a fixture, an eval case or a
 * bundled profile): the method follows the kind of data by meaning, literature is cited only
 * when it is about the topic, the text is built from the researcher's words without artifacts,
 * the plan follows the timeline (or says it cannot and plans what fits), skills the profile lists
 * are never called missing, and quality control checks what it claims.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedEmbedder, describeWithModel, modelDir } from '../helpers/installed-embedder';
import {
  formatTimeline,
  timelineWeeks,
  type DataCollectionPlan,
  type MethodologyRecommendation,
  type ProblemDefinition,
  type ResearchObjectives,
  type UserProfile,
} from '../../flows/proposal/contract';
import { checkWriting, parseDurationWeeks, proposalTexts } from '../../flows/proposal/quality';
import { restoreEmbedder, useEmbedder } from '../../flows/lib/standin/meaning';
import { withinBudget } from '../helpers/work-budget';
import { proposalRules } from '../../flows/proposal/standin';
import {
  clauses,
  dataStateOf,
  denies,
  existingData,
  meansPhrase,
  methodReading,
  phrases,
  profileEvidence,
  readsAsMeans,
  studyDesign,
  subtitleOf,
  spans,
  topicFit,
  type DataKind,
} from '../../flows/proposal/standin/meaning';

type Sections = Record<string, unknown>;
const ask = async <T = Record<string, any>>(task: string, sections: Sections): Promise<T> =>
  (await proposalRules
    .find((r) => r.task === `proposal.${task}`)!
    .answer({ task: `proposal.${task}`, system: '', turns: 1, responseSchema: undefined, sections })) as T;

const prompted = (p: UserProfile) => ({
  ...p,
  timeline_weeks: timelineWeeks(p.total_timeline),
  timeline: formatTimeline(p.total_timeline),
});

interface Hit {
  id: string;
  title: string;
  source: string;
  year: number | null;
  snippet: string;
  keywords: string[];
}

/** Runs the five stages as the activities would, and assembles what the proposal would hold. */
async function draft(p: UserProfile, hits: Hit[] = []) {
  const profile = prompted(p);
  const pf = await ask('problem_formulation', { profile, search_results: hits });
  const byId = new Map(hits.map((h) => [h.id, h]));
  const problem: ProblemDefinition = {
    problem_statement: pf.problem_statement,
    main_research_question: pf.main_research_question,
    secondary_questions: pf.secondary_questions,
    key_variables: pf.key_variables,
    preliminary_literature: (pf.literature as Array<{ result_id: string; relevance_note: string }>).map((l) => ({
      title: byId.get(l.result_id)!.title,
      url: `https://example.org/${l.result_id}`,
      relevance_note: l.relevance_note,
      source: byId.get(l.result_id)!.source,
    })),
    refinement_history: [],
  };
  const questions = {
    main_research_question: problem.main_research_question,
    secondary_questions: problem.secondary_questions,
    key_variables: problem.key_variables,
  };
  const objectives = await ask<ResearchObjectives>('objectives', { profile, problem: questions });
  const methodology = await ask<MethodologyRecommendation>('methodology', {
    profile,
    problem: { main_research_question: problem.main_research_question, key_variables: problem.key_variables },
    objectives: {
      general_objective: objectives.general_objective,
      specific_objectives: objectives.specific_objectives,
    },
  });
  const plan = await ask<DataCollectionPlan>('data_collection', {
    profile,
    objectives: { specific_objectives: objectives.specific_objectives },
    methodology: {
      recommended_methodology: methodology.recommended_methodology,
      methodology_type: methodology.methodology_type,
      key_phases: methodology.timeline_fit.key_phases.map((k) => k.name),
    },
  });
  return { profile, title: pf.working_title as string, problem, objectives, methodology, plan };
}

/** What quality control is shown, as the activity sends it. */
function qualitySections(d: Awaited<ReturnType<typeof draft>>) {
  return {
    profile: d.profile,
    problem: {
      main_research_question: d.problem.main_research_question,
      secondary_questions: d.problem.secondary_questions,
      key_variables: d.problem.key_variables,
      literature_count: d.problem.preliminary_literature.length,
      literature: d.problem.preliminary_literature.map((l) => ({ title: l.title, relevance_note: l.relevance_note })),
    },
    objectives: {
      general_objective: d.objectives.general_objective,
      specific_objectives: d.objectives.specific_objectives,
      timeline_assessment: d.objectives.feasibility_notes.timeline_assessment,
    },
    methodology: {
      recommended_methodology: d.methodology.recommended_methodology,
      methodology_type: d.methodology.methodology_type,
      justification: d.methodology.justification,
      estimated_duration: d.methodology.timeline_fit.estimated_duration,
      is_feasible: d.methodology.timeline_fit.is_feasible,
    },
    data_collection: {
      collection_techniques: d.plan.collection_techniques,
      timeline_breakdown: d.plan.timeline_breakdown,
    },
  };
}

const base = (over: Partial<UserProfile>): UserProfile => ({
  academic_program: "Master's",
  field_of_study: 'Geography',
  research_area: 'x',
  weekly_hours: 20,
  total_timeline: { value: 9, unit: 'months' },
  existing_skills: [],
  missing_skills: [],
  constraints: [],
  ...over,
});

/** What the objectives say of the timeline, for a profile written over the base one. */
const timelineAssessment = async (over: Partial<UserProfile>) =>
  (await draft(base(over))).objectives.feasibility_notes.timeline_assessment;

// Runs where the embedding model is installed (npm test installs it on first use).
describeWithModel('proposal stand-in by meaning (embedding model installed)', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  const kindOf = async (research_area: string, additional_context: string, field_of_study = '') =>
    (await studyDesign({ research_area, additional_context, field_of_study, existing_skills: [], missing_skills: [] }))
      .kinds;

  it('chooses the method from the kind of data the profile describes', async () => {
    const cases: Array<[string, string, DataKind]> = [
      [
        'Land charters of a Benedictine abbey',
        'The charters survive in a cartulary now kept in the cathedral library.',
        'documents',
      ],
      [
        'How volunteer firefighters balance call-outs with paid work',
        'Long conversations with volunteers from rural stations about their week.',
        'interviews',
      ],
      [
        'Student attitudes to online exams',
        'A short questionnaire to all second-year students in my faculty.',
        'survey',
      ],
      [
        'Microplastics in allotment garden soils',
        'I will take soil cores from twenty allotment plots and count particles under the microscope.',
        'lab',
      ],
      [
        'Teaching fractions through cooking in a Year 4 class',
        'I will plan six cooking lessons for my class and collect their worksheets.',
        'practice',
      ],
    ];
    for (const [area, context, kind] of cases) expect(await kindOf(area, context), area).toContain(kind);
  }, 60_000);

  it('reads what a study does with its data, not the setting or the groups it names', async () => {
    const design = (research_area: string, additional_context: string, constraints: string[] = []) =>
      studyDesign({
        research_area,
        additional_context,
        constraints,
        field_of_study: '',
        existing_skills: [],
        missing_skills: [],
      });
    const chosen = (d: Awaited<ReturnType<typeof design>>) => [...d.kinds, ...d.open];
    // Texts that already exist, read in a setting where people are served: no one is given anything.
    const emails = await design(
      'Politeness in emails between pharmacists and their customers',
      'A chain of pharmacies will let me read two years of its customer email archive, and I want to see whether replies to older customers differ from replies to younger ones.',
      ['Consent from the chain’s data protection officer'],
    );
    expect(chosen(emails)).not.toContain('intervention');
    expect(chosen(emails).some((k) => k === 'documents' || k === 'dataset')).toBe(true);
    const logbooks = await design(
      'Punishment in village schools between 1880 and 1920',
      'The logbooks head teachers kept in those years are in the county archive, and I will read them for every school in one district.',
    );
    expect(chosen(logbooks)).toEqual(['documents']);
    // Recordings and marked work a school or nursery already made are a corpus, not a trial or a survey.
    const recordings = await design(
      'Words children use for feelings in picture-book reading at nursery',
      "Nursery staff have recorded 40 shared reading sessions over the past year and I will transcribe and analyse the children's words.",
    );
    expect(recordings.kinds).toEqual(['documents']);
    const essays = await design(
      'Feedback comments on student essays in one secondary school',
      "The school has given me 600 marked essays from last year with the teachers' written comments, and I will code what kinds of feedback they give.",
    );
    expect(essays.kinds).toEqual(['documents']);
    // Two set-ups of a program compared on the same inputs: a trial of software, not of people.
    const search = await design(
      'Does a reranking step help a library catalogue find the book a reader wants?',
      'I will rerun a thousand past catalogue queries through the search with and without the reranker and count how often the wanted book comes first.',
    );
    expect(chosen(search)).not.toContain('intervention');
    expect(chosen(search)).toContain('computational');
    // Building something with its future users, round after round, in a setting where people are cared for:
    // at most a choice left open with a trial, never a trial taken for sure.
    const codesign = await design(
      'Co-designing a medication reminder app with older adults at a day centre',
      'I will run four workshops with members of the centre to sketch and try paper prototypes, then build a clickable version and watch them use it.',
    );
    expect(codesign.kinds).not.toContain('intervention');
    expect(chosen(codesign)).toContain('practice');
    // A change given to some people and not to others is still read as a trial.
    const stretching = await design(
      'A daily stretching routine and back pain in warehouse pickers',
      'Half the pickers on each shift will do the routine for eight weeks and the others will not, and both groups rate their pain every week.',
    );
    expect(chosen(stretching)).toContain('intervention');
  }, 60_000);

  it('hears neither a kind of work the profile rules out nor a subject over the method the area names', async () => {
    const design = (research_area: string, additional_context: string, constraints: string[] = []) =>
      studyDesign({
        research_area,
        additional_context,
        constraints,
        field_of_study: '',
        existing_skills: [],
        missing_skills: [],
      });
    // "No wet lab" names a laboratory; the study reanalyses tables others deposited.
    const tables = await design(
      'Protein markers of early kidney damage in archived patient data',
      'I will reanalyse the protein tables deposited alongside published studies.',
      ['No wet lab access this year'],
    );
    expect(tables.kinds).not.toContain('lab');
    // Rivers and gauges sound like measuring on site; the area says a network predicts them.
    const river = await design(
      'Daily river levels in mountain catchments predicted with recurrent neural networks',
      'Each catchment has rain and river gauges upstream of the town.',
    );
    expect([...river.kinds, ...river.open]).toContain('computational');
  }, 60_000);

  it('never proposes site measurements for teaching in a classroom', async () => {
    const d = await draft(
      base({
        field_of_study: 'Music Education',
        research_area: 'Group recorder lessons and pupils’ ensemble skills',
        additional_context: 'I run weekly recorder groups with my own Year 3 class and keep notes on each session.',
        existing_skills: ['Recorder teaching'],
      }),
    );
    const method = [d.methodology.recommended_methodology, ...d.plan.collection_techniques].join(' ');
    expect(method).not.toMatch(/field|site|sensor|in-situ|laborator/i);
    expect(await methodReading(d.methodology.recommended_methodology)).toContain('practice');
  }, 60_000);

  const marsh = base({
    field_of_study: 'Physical Geography',
    research_area: 'Salt marsh retreat under rising sea levels',
    additional_context: 'Comparing marsh edges on aerial photographs from 1990 and 2020.',
  });
  const onTopic: Hit = {
    id: 'marsh-1',
    title: 'Salt marsh edge erosion under accelerating sea-level rise',
    source: 'Estuarine Studies',
    year: 2019,
    snippet:
      'Marsh edges retreated by up to two metres a year where sea level rose fastest. Wave energy mattered more than',
    keywords: ['salt marsh', 'sea-level rise', 'erosion'],
  };
  const offTopic: Hit[] = [
    {
      id: 'flu',
      title: 'Detecting influenza epidemics using search engine query data',
      source: 'Nature',
      year: 2009,
      snippet: 'Search queries can track influenza-like illness across regions of the United States.',
      keywords: ['public health', 'epidemiology', 'big data'],
    },
    {
      id: 'agents',
      title: 'Cooperative agents that divide work by debate',
      source: 'arXiv',
      year: 2023,
      snippet: 'Language model agents debate to improve the factuality of their answers.',
      keywords: ['multi-agent debate', 'large language models'],
    },
  ];

  it('cites only studies about the topic, whole sentences, and says plainly when the collection has none', async () => {
    const withOne = await draft(marsh, [offTopic[0], onTopic, offTopic[1]]);
    expect(withOne.problem.preliminary_literature.map((l) => l.title)).toEqual([onTopic.title]);
    expect(withOne.problem.preliminary_literature[0].relevance_note).toMatch(/^“Marsh edges retreated[^.]*\.”( |$)/);
    expect(withOne.problem.preliminary_literature[0].relevance_note).not.toContain('more than');
    expect(withOne.problem.problem_statement).toMatch(/thin/);

    const withNone = await draft(marsh, offTopic);
    expect(withNone.problem.preliminary_literature).toEqual([]);
    expect(withNone.problem.problem_statement).toContain(
      'No matching literature was found in the searched collection.',
    );
    expect(JSON.stringify(withNone)).not.toMatch(/\b0 stud|study\/studies|\w\(s\)/);
  }, 60_000);

  it('writes from the researcher’s words: no artifacts, their names kept, labels lowered, the area where it belongs', async () => {
    const p = base({
      field_of_study: 'Civil Engineering',
      research_area: 'Accessibility of Welsh council websites under the 2018 regulations',
      additional_context: 'I will audit forty council websites with automated checkers and by hand.',
      existing_skills: ['Finite Element Analysis', 'Python'],
      missing_skills: ['Reinforcement Learning', 'Statistics'],
      constraints: ['No budget', 'Evenings only'],
    });
    const d = await draft(p, offTopic);
    const texts = proposalTexts(d.problem, d.objectives, d.methodology, d.plan);
    expect(checkWriting(texts).issues).toEqual([]);
    const all = texts.map((t) => t.text);
    // Names as the researcher writes them; labels from the form in lower case inside sentences.
    expect(all.filter((t) => /welsh/i.test(t)).every((t) => t.includes('Welsh'))).toBe(true);
    expect(d.objectives.feasibility_notes.risk_factors).toContain(
      'Learning reinforcement learning takes time early in the project.',
    );
    expect(d.objectives.feasibility_notes.risk_factors).toContain(
      'Learning statistics takes time early in the project.',
    );
    // The area is in the statement and the main question, not pasted into every section.
    expect(all.filter((t) => t.includes('council websites under the 2018 regulations')).length).toBeLessThanOrEqual(2);
    // A main question, not a clause fragment, and no echo of the area inside it.
    expect(d.problem.main_research_question).toMatch(/^(What|How|Which|Why|Does|Do|Is|Can)\b.*\?$/);
  }, 60_000);

  it('takes a research area written as a question as the researcher’s own question', async () => {
    const d = await draft(
      base({
        research_area: 'Does cold-water swimming change resting heart rate in older adults?',
        additional_context: 'Volunteers would be split into a swimming group and a walking group for eight weeks.',
      }),
    );
    expect(d.title).toBe('Does cold-water swimming change resting heart rate in older adults?');
    expect(d.problem.main_research_question).toBe(d.title);
    expect(d.problem.problem_statement).not.toMatch(/about does/i);
    expect(d.problem.key_variables.join(' ')).not.toMatch(/\bdoes\b/i);
    expect(checkWriting(proposalTexts(d.problem, d.objectives, d.methodology, d.plan)).issues).toEqual([]);
  }, 60_000);

  it('asks the main question about the subject of a title with a subtitle, not across its colon', async () => {
    const d = await draft(
      base({
        research_area: 'Commuting habits of night-shift nurses in two coastal towns: a diary study',
        additional_context: 'Forty nurses have offered to keep a two-week travel diary.',
      }),
    );
    expect(d.problem.main_research_question).toMatch(/commuting habits of night-shift nurses in two coastal towns\?$/i);
    expect(d.problem.main_research_question).not.toMatch(/:/);
    // A short title is a label: the whole area stays the subject.
    const label = await draft(base({ research_area: 'Case study: flood insurance uptake after the 2015 floods' }));
    expect(label.problem.main_research_question).toMatch(/flood insurance uptake after the 2015 floods\?$/);
  }, 60_000);

  it('plans the whole timeline in phases that add up to it', async () => {
    const phd = await draft(
      base({
        academic_program: 'PhD',
        research_area: 'Land charters of a Benedictine abbey',
        additional_context: 'The charters survive in a cartulary now kept in the cathedral library.',
        total_timeline: { value: 3, unit: 'years' },
      }),
    );
    expect(parseDurationWeeks(phd.methodology.timeline_fit.estimated_duration)).toBe(156);
    const phases = phd.methodology.timeline_fit.key_phases.map((k) => parseDurationWeeks(k.duration)!);
    expect(Math.round(phases.reduce((a, b) => a + b, 0))).toBe(156);
    expect(parseDurationWeeks(phd.plan.timeline_breakdown.total_duration)).toBe(156);
    expect(phd.methodology.timeline_fit.is_feasible).toBe(true);

    const short = await draft(
      base({
        research_area: 'Student attitudes to online exams',
        additional_context: 'A short questionnaire to all second-year students in my faculty.',
        total_timeline: { value: 14, unit: 'weeks' },
      }),
    );
    expect(short.methodology.timeline_fit.estimated_duration).toBe('14 weeks');
    expect(short.plan.timeline_breakdown.total_duration).toBe('14 weeks');
  }, 60_000);

  it('says when the time is too short, and plans what fits: data that already exist, else a review and a protocol', async () => {
    const withData = await draft(
      base({
        academic_program: 'Undergraduate',
        research_area: 'Noise levels around a primary school during the morning drop-off',
        additional_context:
          'The council already recorded two years of noise readings outside the school, which nobody has looked at. I would like to place my own meters too.',
        weekly_hours: 15,
        total_timeline: { value: 3, unit: 'weeks' },
      }),
    );
    expect(withData.objectives.feasibility_notes.timeline_assessment).toMatch(/cannot be completed/);
    expect(withData.methodology.recommended_methodology).toMatch(/existing data/i);
    expect(withData.methodology.justification).toContain('The council already recorded two years of noise readings');
    expect(parseDurationWeeks(withData.methodology.timeline_fit.estimated_duration)).toBe(3);

    const without = await draft(
      base({
        research_area: 'How volunteer firefighters balance call-outs with paid work',
        additional_context: 'Long conversations with volunteers from rural stations about their week.',
        weekly_hours: 2,
        total_timeline: { value: 2, unit: 'weeks' },
      }),
    );
    expect(without.methodology.timeline_fit.is_feasible).toBe(false);
    expect(without.objectives.feasibility_notes.timeline_assessment).toMatch(/cannot be completed/);
    expect(without.methodology.recommended_methodology).toMatch(/protocol/i);
  }, 60_000);

  it('when only the span the data need is too long, plans a pilot of the same design, not a review', async () => {
    const d = await draft(
      base({
        field_of_study: 'Marine Biology',
        research_area: 'Settlement of barnacle larvae on test panels in a harbour',
        additional_context:
          'I will hang settlement panels at four piers and photograph them every fortnight through two full spawning seasons.',
        weekly_hours: 20,
        total_timeline: { value: 12, unit: 'weeks' },
      }),
    );
    // The study as described does not fit; the pilot recommended in its place does.
    expect(d.objectives.feasibility_notes.timeline_assessment).toMatch(/cannot be completed/);
    expect(d.methodology.timeline_fit.is_feasible).toBe(true);
    expect(d.methodology.recommended_methodology).toMatch(/pilot/i);
    expect(d.methodology.recommended_methodology).not.toMatch(/review/i);
    expect(await methodReading(d.methodology.recommended_methodology)).toContain('field');
    // A span of time is compared with the time there is, not with hours a week.
    expect(d.methodology.justification).toMatch(/longer than the 12 weeks available/);
  }, 60_000);

  it('writes an area that asks a question without its mark as the question it is', async () => {
    const about = async (research_area: string) => (await draft(base({ research_area }))).problem;
    // An indirect question: its question word in lower case, the names after it as written.
    const paid = await about('How Welsh slate quarrymen were paid in the 1870s: bargain rates and deductions');
    expect(paid.problem_statement).toMatch(/^This proposal is about how Welsh slate quarrymen were paid/);
    expect(paid.main_research_question).toMatch(/about how Welsh slate quarrymen were paid in the 1870s\?$/);
    // A yes-or-no question is asked as one.
    const slugs = await about('Does copper tape keep slugs off lettuce beds');
    expect(slugs.problem_statement).toMatch(/^This proposal asks: Does copper tape keep slugs off lettuce beds\? /);
    expect(slugs.main_research_question).toBe('Does copper tape keep slugs off lettuce beds?');
    // "Will" here is a noun: no question.
    expect((await about('Will writing in Georgian Bath')).problem_statement).toMatch(
      /is about will writing in Georgian Bath\./,
    );
  }, 60_000);

  it('asks no question of an area that opens with an acronym or a noun, and asks one mark only', async () => {
    const about = async (research_area: string) => (await draft(base({ research_area }))).problem;
    // Capitals name a field ("IS" is information systems), and "does" before "and" are deer.
    const acronym = await about('IS governance in small accountancy practices');
    expect(acronym.problem_statement).toMatch(/^This proposal is about IS governance in small accountancy practices\./);
    expect(acronym.main_research_question).not.toBe('IS governance in small accountancy practices?');
    expect((await about('Does and bucks: grazing ranges of roe deer')).problem_statement).not.toMatch(/asks:/);
    // A question already asked keeps one mark.
    const doubled = await about('Does sea salt spray slow rust on garden gates?!');
    expect(doubled.main_research_question).toBe('Does sea salt spray slow rust on garden gates?');
  }, 60_000);

  it('reads a measurement long after each start as time the study gathers, and leaves time around it', async () => {
    const follow = (weeks: number) =>
      timelineAssessment({
        field_of_study: 'Veterinary Science',
        research_area: 'Whether a softer bedding mat shortens lameness in dairy heifers',
        additional_context:
          'Heifers are given the new mat or the old one when they calve; lameness is scored at 6 months after calving.',
        weekly_hours: 20,
        total_timeline: { value: weeks, unit: 'weeks' },
      });
    // Six months (26 weeks) of following each heifer leave two of 28 weeks to set up and analyse: too few.
    expect(await follow(28)).toMatch(/cannot be completed/);
    expect(await follow(40)).not.toMatch(/cannot be completed/);
  }, 60_000);

  it('reads a span of records that already exist as data to analyse, not as time the study needs', async () => {
    const d = await draft(
      base({
        field_of_study: 'Transport Studies',
        research_area: 'Whether bus lateness follows the weather',
        additional_context:
          'Drawing on twelve years of archived bus arrival logs that the operator publishes, I want to model lateness against rainfall and wind.',
        weekly_hours: 15,
        total_timeline: { value: 6, unit: 'months' },
      }),
    );
    expect(d.methodology.timeline_fit.is_feasible).toBe(true);
    expect(d.objectives.feasibility_notes.timeline_assessment).not.toMatch(/cannot be completed/);
  }, 60_000);

  it('tells the span of the researcher’s own work from a span of records named in the same clause', async () => {
    const plan = (additional_context: string) =>
      timelineAssessment({
        research_area: 'Shoreline erosion along a shingle coast',
        additional_context,
        weekly_hours: 30,
        total_timeline: { value: 26, unit: 'weeks' },
      });
    // Years still to come, joined to records already kept: the study needs them.
    expect(
      await plan(
        'I will join the twelve years of beach profiles the council already holds with three more years of my own surveys.',
      ),
    ).toMatch(/cannot be completed/);
    // Records already kept, joined to a short piece of new work: they are data, not time.
    expect(
      await plan(
        'I plan to walk the shore with a GPS for eight weeks and set the results beside ten years of aerial photographs the county already has.',
      ),
    ).not.toMatch(/cannot be completed/);
    // "More than" or "over" a count of records says how much there is, not time still to come.
    expect(await plan('I will analyse more than twelve years of archived storm reports.')).not.toMatch(
      /cannot be completed/,
    );
    expect(await plan('I will analyse over twelve years of archived storm reports.')).not.toMatch(
      /cannot be completed/,
    );
    // How long the researcher's own logging lasts, whatever the sentence otherwise sounds like.
    const diary = await draft(
      base({
        research_area: 'Shoreline erosion along a shingle coast',
        additional_context: 'I need to keep a weekly log of the shingle ridge for eighteen months.',
        weekly_hours: 30,
        total_timeline: { value: 26, unit: 'weeks' },
      }),
    );
    expect(diary.objectives.feasibility_notes.timeline_assessment).toMatch(/cannot be completed/);
    // And the sentence that says so is not quoted as data already there.
    expect(diary.methodology.justification).not.toMatch(/already exist/);
  }, 60_000);

  it('reads the span of a plan told without "I will", and not the span of an archive', async () => {
    const trial = await draft(
      base({
        field_of_study: 'Entomology',
        research_area: 'Night-flying moth numbers under new street lighting',
        additional_context:
          'The core of the project is a field trial: run light traps every week at six streets across two full summers and count the catch.',
        weekly_hours: 20,
        total_timeline: { value: 3, unit: 'months' },
      }),
    );
    expect(trial.objectives.feasibility_notes.timeline_assessment).toMatch(/cannot be completed/);
    const archive = await draft(
      base({
        field_of_study: 'History',
        research_area: 'How a market town recorded its poor relief',
        additional_context: 'The town archive covers two centuries of overseers’ accounts, all digitised.',
        weekly_hours: 20,
        total_timeline: { value: 6, unit: 'months' },
      }),
    );
    expect(archive.objectives.feasibility_notes.timeline_assessment).not.toMatch(/cannot be completed/);
  }, 60_000);

  it('finds the sentence about data already kept among sentences about collecting new data', async () => {
    const logs = 'The port authority has kept crane downtime logs since 2016 and will pass them to me.';
    expect(
      await existingData(
        `I would like to fit strain gauges to the cranes and log them for a year. ${logs} I will also measure wind at the quay.`,
      ),
    ).toBe(logs);
    expect(
      await existingData(
        'I want to trap moths every week at a restored meadow and at an untouched reference meadow, and count them in the lab.',
      ),
    ).toBeUndefined();
  }, 60_000);

  it('never takes a sentence that denies the data for data already there; a negation about something else is no denial', async () => {
    for (const denial of [
      'No tide gauge readings exist for this harbour yet.',
      'Nobody has ever logged how long the ferries wait at the pier.',
      'The museum keeps no visitor counts at all.',
      "The clinic hasn't kept waiting-time records since it opened.",
    ]) {
      expect(await existingData(`I will count visitors by hand each weekend. ${denial}`)).toBeUndefined();
      expect(await dataStateOf(denial)).not.toBe('existing');
    }
    const kept = 'The harbour office has logged ferry departures since 2019, which nobody has looked at.';
    expect(await existingData(`I will also interview the skippers. ${kept}`)).toBe(kept);
  }, 60_000);

  it('takes a study close to the topic as a whole as on topic, even when its keywords are only its field', async () => {
    const p = {
      research_area: 'Forecasting daily emergency department arrivals from local weather and school holidays',
      additional_context: 'I have three years of arrival counts from one hospital.',
    };
    const near = await topicFit(
      {
        title: 'Predicting emergency department visit volumes from weather and calendar effects',
        snippet: 'We model daily emergency department visits using temperature, rainfall and public holidays.',
        keywords: ['health services', 'operations research', 'statistics'],
      },
      p,
    );
    expect(near.onTopic).toBe(true);
    const far = await topicFit(
      {
        title: 'Crop yield prediction from satellite imagery',
        snippet: 'We predict wheat yields from remote sensing data.',
        keywords: ['agriculture', 'remote sensing', 'statistics'],
      },
      p,
    );
    expect(far.onTopic).toBe(false);
  }, 60_000);

  it('hears the subject a study names in its title, and the short names an area written as a clause is made of', async () => {
    // Broad keywords; the title names the subject ("cell phone network records").
    const seaside = {
      research_area: 'Estimating visitor numbers in seaside towns from mobile phone location data',
      additional_context: 'The operator shares hourly counts of phones per cell for three summers.',
    };
    const crowds = {
      title: 'Counting crowds with cell phone network records',
      snippet: 'Network records of connected handsets track how many people are in a district hour by hour.',
      keywords: ['urban studies', 'big data', 'mobility'],
    };
    expect((await topicFit(crowds, seaside)).onTopic).toBe(true);
    // A study that shares a word of the topic but not its subject, and one of the place alone.
    const driving = {
      title: 'Mobile phone use while driving and crash risk',
      snippet: 'Drivers who used a handset had a higher risk of crashing.',
      keywords: ['road safety', 'distraction'],
    };
    const cliffs = {
      title: 'Coastal erosion of chalk cliffs',
      snippet: 'Cliff retreat rates were measured along the coast.',
      keywords: ['geomorphology', 'coasts'],
    };
    expect((await topicFit(driving, seaside)).onTopic).toBe(false);
    expect((await topicFit(cliffs, seaside)).onTopic).toBe(false);
    // An area written as a clause: its subject is a short run of its words, not the whole clause.
    const comet = {
      research_area: 'how amateur astronomers share their observations when a bright comet appears',
      additional_context: 'I will talk with members of two astronomy clubs.',
    };
    const volunteers = {
      title: 'Citizen science in astronomy: volunteers and data sharing',
      snippet: 'Volunteers report sky observations and share them with professional astronomers.',
      keywords: ['citizen science', 'public participation', 'open data'],
    };
    expect((await topicFit(volunteers, comet)).onTopic).toBe(true);
  }, 60_000);

  // A study that shares one name with the topic but not its subject (the same word for another
  // kind of transport, the same device put to another use) is no literature on it; a study that
  // says the topic in other words, or in the topic's own words, is. The floor keeps out the first
  // sibling; the second is close enough to the topic and is kept out by what it shares beyond the
  // name; the short area shows that one shared name is no exemption.
  it.each([
    {
      topic: {
        research_area: 'How ferry timetables shape commuting choices of island residents',
        additional_context: 'I will survey commuters on two island routes.',
      },
      sibling: {
        title: 'Timetable synchronisation for urban bus networks',
        snippet: 'We optimise departure times so that buses meet at interchange stops.',
        keywords: ['timetables', 'bus networks', 'optimisation'],
      },
      onTopic: [
        {
          title: 'Island commuters and the ferry schedule',
          snippet: 'Residents of three islands told us how sailing times decide where they work.',
          keywords: ['islands', 'commuting', 'ferries'],
        },
      ],
    },
    {
      topic: {
        research_area: 'Whether smart meters help pensioners cut their winter heating bills',
        additional_context: 'I will compare bills of households with and without a meter.',
      },
      sibling: {
        title: 'Smart meters as a source of load data for grid operators',
        snippet: 'Half-hourly readings from smart meters let distribution networks forecast local load.',
        keywords: ['smart meters', 'load forecasting', 'distribution networks'],
      },
      onTopic: [
        {
          title: 'Older households, in-home energy displays and heating costs',
          snippet: 'Retired people shown their live gas use turned thermostats down and paid less over the winter.',
          keywords: ['energy feedback', 'older people', 'fuel poverty'],
        },
        {
          title: 'Smart meter roll-out and the bills of elderly households',
          snippet: 'We compare the heating bills of pensioners before and after a meter was fitted.',
          keywords: ['smart meters', 'pensioners', 'energy bills'],
        },
      ],
    },
    {
      topic: { research_area: 'Smart meters', additional_context: '' },
      sibling: {
        title: 'Smart meters as a source of load data for grid operators',
        snippet: 'Half-hourly readings from smart meters let distribution networks forecast local load.',
        keywords: ['smart meters', 'load forecasting', 'distribution networks'],
      },
      onTopic: [],
    },
  ])(
    'takes no study that only shares a name with "$topic.research_area"',
    async ({ topic, sibling, onTopic }) => {
      expect((await topicFit(sibling, topic)).onTopic).toBe(false);
      for (const study of onTopic) expect((await topicFit(study, topic)).onTopic, study.title).toBe(true);
    },
    60_000,
  );

  it('takes a study of a method the researcher lists as a skill as bearing on the topic, not a general one', async () => {
    const wheat = {
      research_area: 'Which genes wheat leaves switch on under drought',
      additional_context:
        'I will grow two cultivars with and without water and sequence leaf RNA at three time points.',
      missing_skills: ['Count-based expression statistics'],
      existing_skills: ['Plant growth'],
    };
    const method = {
      title: 'Statistics of gene expression counts under changing conditions',
      snippet: 'A method to compare expression between treatments from leaf sequencing counts.',
      keywords: ['expression statistics', 'genomics'],
    };
    expect((await topicFit(method, wheat)).onTopic).toBe(true);
    // The same study without the skill shares too little with the topic.
    expect((await topicFit(method, { ...wheat, missing_skills: [], existing_skills: [] })).onTopic).toBe(false);
    // A skill brings in no study far from the topic, however close its keyword.
    const far = {
      title: 'Large language models as coding assistants',
      snippet: 'We test code completion tools on programming tasks.',
      keywords: ['software engineering', 'programming'],
    };
    expect((await topicFit(far, { ...wheat, missing_skills: ['Programming'] })).onTopic).toBe(false);
  }, 60_000);

  it('never calls a skill missing that the profile lists', async () => {
    const d = await draft(
      base({
        research_area: 'How volunteer firefighters balance call-outs with paid work',
        additional_context: 'Long conversations with volunteers from rural stations about their week.',
        existing_skills: ['Interviewing', 'Qualitative coding', 'Statistics', 'Questionnaire design'],
      }),
    );
    const claimed = [
      ...d.methodology.required_skills,
      ...d.objectives.feasibility_notes.skills_required,
      ...d.methodology.alternative_methodologies.flatMap((a) => a.cons),
    ].join(' ');
    expect(claimed).not.toMatch(/interviewing|qualitative coding|statistics|questionnaire design/i);
  }, 60_000);

  it('quality control checks topic fit of the citations and of the method, not word overlap', async () => {
    const classroom = base({
      field_of_study: 'Music Education',
      research_area: 'Group recorder lessons and pupils’ ensemble skills',
      additional_context: 'I run weekly recorder groups with my own Year 3 class and keep notes on each session.',
    });
    const good = await draft(classroom);
    const clean = await ask('quality_control', qualitySections(good));
    expect(clean.coherence_score).toBeGreaterThanOrEqual(0.7);
    expect(JSON.stringify(clean.issues_identified)).not.toMatch(/not about the topic|does not fit the kind of data/);

    const offTopicCited = qualitySections(good);
    offTopicCited.problem.literature = [{ title: offTopic[0].title, relevance_note: offTopic[0].snippet }];
    offTopicCited.problem.literature_count = 1;
    const q1 = await ask('quality_control', offTopicCited);
    expect(q1.coherence_score).toBeLessThan(0.7);
    expect(JSON.stringify(q1.issues_identified)).toMatch(/not on the topic/);

    const wrongMethod = qualitySections(good);
    wrongMethod.methodology.recommended_methodology =
      'In-situ field measurements with strain sensors at the study sites';
    const q2 = await ask('quality_control', wrongMethod);
    expect(q2.coherence_score).toBeLessThan(0.7);
    expect(JSON.stringify(q2.issues_identified)).toMatch(/does not fit the kind of data/);
  }, 90_000);
});

describeWithModel('proposal stand-in: how the study works, from the research area', () => {
  beforeAll(async () => useEmbedder(await installedEmbedder(modelDir!)));
  afterAll(() => restoreEmbedder());

  it('hears who a phrase after "with", "by" or "from" is about, and keeps one that names a means', async () => {
    for (const who of ['with hearing loss', 'from low-income households', 'by small farmers', 'with type 2 diabetes'])
      expect(await readsAsMeans(who), who).toBe(false);
    for (const means of [
      'with graph neural networks',
      'from court records',
      'using satellite images',
      'with a mixed-methods design',
    ])
      expect(await readsAsMeans(means), means).toBe(true);
  });

  it('keeps a phrase after "using", "through", "via" or "by means of" as a means, whoever it names', async () => {
    for (const means of [
      'through conversations with volunteers',
      'by means of exit surveys from departing staff',
      'using a questionnaire for parents and teachers',
    ])
      expect(await readsAsMeans(means), means).toBe(true);
  });

  it('does not take a study of the setting the context names for a study of the topic', async () => {
    // The context says where the study happens (schools); a study of schooling is not about the topic.
    const fit = await topicFit(
      {
        title: 'ChatGPT for good? On opportunities and challenges of large language models for education',
        snippet: 'Discusses how large language models can support teaching and learning and the risks they bring.',
        keywords: ['education', 'large language models', 'ethics'],
      },
      {
        research_area: "code-switching between Welsh and English in teenagers' WhatsApp groups — a corpus study",
        additional_context: 'Two schools in Gwynedd have agreed; about 60 pupils may donate chats.',
      },
    );
    expect(fit.onTopic).toBe(false);
  });

  it('reads the short names of a title: runs of two or three words that neither start nor end on a function word', () => {
    const runs = spans('how amateur astronomers share their observations when a bright comet appears');
    expect(runs).toEqual(expect.arrayContaining(['amateur astronomers', 'bright comet', 'comet appears']));
    for (const r of runs) expect(r).not.toMatch(/^(?:how|their|when|a)\b|\b(?:how|their|when|a)$/);
  });

  it('splits the context into clauses, not figures joined by "and"', () => {
    expect(
      clauses('The 2019 and 2021 censuses of the parish are online, and I will read them in the archive.'),
    ).toEqual(['The 2019 and 2021 censuses of the parish are online', 'I will read them in the archive']);
    expect(clauses('Hive weights from 2017 and 2023 and then interviews with keepers')).toEqual([
      'Hive weights from 2017 and 2023',
      'interviews with keepers',
    ]);
    // "With and without", "before and after" are two words of one phrase, not two clauses.
    expect(
      clauses('I will time the kiln firings with and without the new lid and before and after the repair'),
    ).toEqual(['I will time the kiln firings with and without the new lid', 'before and after the repair']);
    // Only as a pair: an "and" before "after …" or "without …" alone still joins two clauses.
    expect(clauses('I photograph the moss plots each spring and after the thaw I weigh the dried samples')).toEqual([
      'I photograph the moss plots each spring',
      'after the thaw I weigh the dried samples',
    ]);
    expect(clauses('The ferry crews log every crossing by hand and without those logs no delay is known')).toEqual([
      'The ferry crews log every crossing by hand',
      'without those logs no delay is known',
    ]);
  });

  it('reads a subtitle as its own piece of evidence', () => {
    expect(subtitleOf('Commuting by bicycle in hilly towns: a survey of riders')).toBe('a survey of riders');
    expect(subtitleOf('Commuting by bicycle in hilly towns')).toBeUndefined();
    expect(subtitleOf('Commuting by e-bike in hilly towns — a diary study')).toBe('a diary study');
    expect(subtitleOf('Commuting by e-bike in hilly towns')).toBeUndefined();
    // A spaced dash between figures is a range, not a subtitle.
    expect(subtitleOf('Ferry timetables 1990 - 2010 from harbour ledgers')).toBeUndefined();
    expect(meansPhrase('Ferry timetables 1990 - 2010 from harbour ledgers')).toBe('from harbour ledgers');
    // Nor does a key phrase end on the dash.
    expect(phrases('Commuting by e-bike in hilly towns — a diary study')).toEqual([
      'Commuting',
      'e-bike',
      'hilly towns',
      'a diary study',
    ]);
    expect(
      profileEvidence({
        research_area: 'Commuting by bicycle in hilly towns: a survey of riders',
        additional_context: '',
        field_of_study: '',
        existing_skills: [],
        missing_skills: [],
      }).map((e) => e.text),
    ).toContain('a survey of riders');
  });
});

describe('proposal stand-in when two kinds of data fit alike', () => {
  afterAll(() => restoreEmbedder());

  it('says which choice is open instead of picking one', async () => {
    // Only "archive" and "laboratory" carry meaning here: one speaks for documents, the other
    // for laboratory tests, and the profile says nothing that would choose between them.
    restoreEmbedder();
    const p = base({ research_area: 'Archive and laboratory', additional_context: '' });
    const design = await studyDesign({ ...p, additional_context: '' });
    expect(design.kinds).toEqual([]);
    expect(new Set(design.open)).toEqual(new Set(['documents', 'lab']));
    const d = await draft(p);
    expect(d.problem.problem_statement).toMatch(/left open/);
    expect(d.methodology.recommended_methodology).toMatch(/ or .*settled in the first phase/);
    expect(d.objectives.feasibility_notes.risk_factors.join(' ')).toMatch(/still open/);
  });

  it('without a model it decides nothing and says so', async () => {
    useEmbedder(undefined);
    const design = await studyDesign({
      research_area: 'Archive and laboratory',
      additional_context: '',
      field_of_study: '',
      existing_skills: [],
      missing_skills: [],
    });
    expect(design.kinds).toEqual([]);
    expect(design.reason).toBe('no-model');
    const d = await draft(base({ research_area: 'Archive and laboratory' }));
    expect(d.problem.preliminary_literature).toEqual([]);
    expect(d.methodology.recommended_methodology).toMatch(/settled in the first phase/);
  });
});

describe('proposal stand-in work bounds', () => {
  // Every evidence text is embedded once per profile (a few milliseconds of CPU each); what the
  // contract allows must not turn into hundreds of them (632 before, over two seconds of CPU).
  it('reads the kind of data from a bounded number of texts, however the allowed text is cut up', () => {
    const tiny = (prefix: string, max: number) => {
      let t = '';
      for (let i = 0; t.length < max - 12; i++) t += `${prefix} b c${i}, `;
      return t.trim();
    };
    const evidence = profileEvidence({
      research_area: 'Shoreline erosion along a shingle coast',
      additional_context: tiny('a', 2000),
      field_of_study: 'Geography',
      existing_skills: Array.from({ length: 20 }, (_, i) => `skill ${i}`),
      missing_skills: Array.from({ length: 20 }, (_, i) => `gap ${i}`),
      constraints: Array.from({ length: 20 }, (_, k) => tiny(`k${k}`, 200)),
    });
    expect(evidence.length).toBeLessThanOrEqual(250);
    // A plain description keeps every clause.
    const plain = 'I will walk the shore each month with a GPS. The county has aerial photographs since 1990.';
    expect(
      profileEvidence({
        research_area: 'x y z',
        additional_context: plain,
        field_of_study: '',
        existing_skills: [],
        missing_skills: [],
      }).length,
    ).toBe(3);
  });
});

describe('proposal stand-in: the texts the kind of data is read from', () => {
  const words = (over: Partial<Parameters<typeof profileEvidence>[0]>) =>
    profileEvidence({
      research_area: 'Ice cover on small upland lakes',
      additional_context: '',
      field_of_study: '',
      existing_skills: [],
      missing_skills: [],
      ...over,
    }).map((e) => e.text);

  it('takes no evidence from a clause that rules a kind of work out', () => {
    const texts = words({
      additional_context: 'I will read the ice logs the anglers club has kept; no interviews with members are planned.',
      constraints: ['No wet lab access this year', 'satellite images from the free archive'],
    });
    expect(texts).not.toContain('No wet lab access this year');
    expect(texts.some((t) => /no interviews/i.test(t))).toBe(false);
    expect(texts).toContain('satellite images from the free archive');
  });

  it('reads the means a research area names on their own as well as the whole area', () => {
    const area = 'Daily river levels in mountain catchments predicted with recurrent neural networks';
    const texts = words({ research_area: area });
    expect(texts).toContain(area);
    expect(texts).toContain('with recurrent neural networks');
    // An area that names no means adds nothing.
    expect(words({ research_area: 'Ice cover on small upland lakes' })).toEqual(['Ice cover on small upland lakes']);
  });
});

describe('proposal stand-in: which sentences deny the data', () => {
  it('reads a negated main clause as a denial', () => {
    for (const s of [
      'No rain gauge readings exist for the valley yet.',
      'Nobody has ever counted the swifts nesting in the old mill.',
      "The school hasn't kept attendance sheets since the fire.",
      'The parish keeps no burial register at all.',
      // A list that ends in ", and" is still the main clause.
      'Baptism, marriage, and burial records were never kept for the chapel.',
    ])
      expect(denies(s), s).toBe(true);
  });

  it('hears no denial in a comparison, a focus on "only", or a relative clause', () => {
    for (const s of [
      // A comparison bounds an amount or a date; it denies nothing.
      'The water board has released meter readings no later than April each year since 2011.',
      'The survey office holds parcel maps for no fewer than 30 villages.',
      'The depot keeps not less than five years of repair tickets.',
      // "not only … but also" adds to what is there.
      'The observatory has not only logged sunspot counts since 1900 but also kept the plates.',
      // A relative clause opened by a quantifier ("none of which", "all of whom") speaks of the data's parts.
      'I was given the ferry manifests from 1950 on, none of which has been studied.',
      // Two conditions compared: the one without the step is half of the comparison.
      'I will sort the seed lots with and without the new sieve and weigh what passes.',
    ])
      expect(denies(s), s).toBe(false);
  });

  it('stays linear on a sentence with a long run of spaces', () => {
    for (const s of ['a' + ' '.repeat(200_000) + 'b', 'a,' + ' \t'.repeat(100_000) + 'x'])
      withinBudget('denies', () => denies(s), 2_000);
  });
});
