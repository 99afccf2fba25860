/**
 * Writing from the researcher's words (flows/proposal/standin/text.ts), the code's writing and
 * plan-length checks in quality control (flows/proposal/quality.ts), and the PDF's footer and
 * counts (flows/proposal/activities/pdf.ts): general behaviour, no model needed.
 */
import { describe, expect, it } from 'vitest';
import { renderProposalPdf } from '../../flows/proposal/activities/pdf';
import { EXAMPLE_PROFILE, type DataCollectionPlan, type ProposalDocument } from '../../flows/proposal/contract';
import { checkFeasibility, checkWriting, combineQuality } from '../../flows/proposal/quality';
import { cutLines } from '../../eval/proposal/index';
import { pdfLines } from '../../eval/proposal/pdf-lines';
import {
  count,
  echoedPhrase,
  fitWords,
  inSentence,
  joinList,
  labelInSentence,
  learnCasing,
} from '../../flows/proposal/standin/text';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe('writing from the researcher’s words', () => {
  const casing = learnCasing([
    'Code-switching between Welsh and English in family chats',
    'I compare New Zealand farms with farms in Chile. Records are kept by the HPV team.',
  ]);

  it('lowers only a capital that came from the start of the phrase, never a name or an acronym', () => {
    expect(inSentence('Poor relief in rural parishes before the 1834 New Poor Law', casing)).toBe(
      'poor relief in rural parishes before the 1834 New Poor Law',
    );
    expect(inSentence('Welsh speakers in family chats', casing)).toBe('Welsh speakers in family chats');
    expect(inSentence('HPV vaccine uptake', casing)).toBe('HPV vaccine uptake');
    // The article that opened the field is lowered; a capital letter standing for a thing is not.
    expect(inSentence('A digital twin of pumping stations', casing)).toBe('a digital twin of pumping stations');
    expect(inSentence('A Level results in two colleges', casing)).toBe('A Level results in two colleges');
    expect(inSentence('An oral history of dock workers', casing)).toBe('an oral history of dock workers');
    expect(inSentence('Single-cell RNA-seq profiles of T cells', casing)).toBe(
      'single-cell RNA-seq profiles of T cells',
    );
    expect(inSentence('New Zealand dairy farms', casing)).toBe('New Zealand dairy farms');
    expect(inSentence('Multi-Agent Systems with agents', casing)).toBe('Multi-Agent Systems with agents');
    expect(inSentence('Machine Learning for Climate', casing, { label: true })).toBe('machine learning for climate');
    // A capitalised possessive is a name unless the word is known in lower case.
    expect(inSentence("Shakespeare's sonnets in school anthologies", casing)).toBe(
      "Shakespeare's sonnets in school anthologies",
    );
    expect(inSentence("Farmers' records", learnCasing(['what farmers keep']))).toBe("farmers' records");
    // A run of capitals at the start is title casing only when those words are written in lower case elsewhere.
    expect(inSentence('Multi-Agent Systems with agents', learnCasing([], ['multi-agent systems are studied']))).toBe(
      'multi-agent systems with agents',
    );
  });

  it('lowers form labels inside sentences, keeping names', () => {
    expect(labelInSentence('Reinforcement Learning', casing)).toBe('reinforcement learning');
    // A first capital is lowered when the word is known in lower case (here from other text on the topic).
    expect(labelInSentence('Image annotation', learnCasing([], ['annotated image sets']))).toBe('image annotation');
    expect(labelInSentence('Statistics', casing)).toBe('statistics');
    expect(labelInSentence('Interviewing', casing)).toBe('interviewing');
    expect(labelInSentence('Python', casing)).toBe('Python');
    expect(labelInSentence('SPSS', casing)).toBe('SPSS');
    expect(labelInSentence('pH measurement', casing)).toBe('pH measurement');
    expect(labelInSentence('English Literature', casing)).toBe('English literature');
  });

  it('keeps, quoted, the researcher’s capital on a label that starts with a word not known in lower case', () => {
    const own = learnCasing(['Soil cores from two upland farms'], ['the samples were sieved and weighed']);
    expect(labelInSentence('Fortran and shell scripts', own)).toBe('“Fortran and shell scripts”');
    expect(labelInSentence('Ubuntu server administration', own)).toBe('“Ubuntu server administration”');
    // A word the texts write in lower case had its capital only from the form.
    expect(labelInSentence('Weighed samples', own)).toBe('weighed samples');
    // A form's title casing is still lowered, names kept.
    expect(labelInSentence('Geographic Information Systems', own)).toBe('geographic information systems');
  });

  it('learns names from other text on the topic: capitalised mid-sentence there and never in lower case', () => {
    const seen = learnCasing(
      ['Variant calling in wheat'],
      ['A pipeline written in Rust for fast alignment. Reads are aligned; then Rust bindings export them.'],
    );
    expect(seen.proper.has('rust')).toBe(true);
    // A capital after a sentence break teaches nothing.
    expect(seen.proper.has('reads')).toBe(false);
    expect(inSentence('Rust tooling for variant calling', seen)).toBe('Rust tooling for variant calling');
    // A word others also write in lower case is no name.
    expect(learnCasing([], ['made of Steel frames', 'steel is used']).proper.has('steel')).toBe(false);
  });

  it('counts in words with the right plural, joins lists as prose, shortens only at word boundaries', () => {
    expect(count(0, 'study', 'studies')).toBe('no studies');
    expect(count(1, 'study', 'studies')).toBe('one study');
    expect(count(3, 'secondary question')).toBe('three secondary questions');
    expect(count(12, 'week')).toBe('12 weeks');
    expect(joinList(['a', 'b', 'c'])).toBe('a, b and c');
    expect(joinList(['a'])).toBe('a');
    expect(fitWords('Detecting stiffness loss in a pedestrian footbridge', 30)).toBe('Detecting stiffness loss in a');
    expect(fitWords('Supercalifragilistic', 5)).toBeUndefined();
  });

  it('finds a phrase repeated within one sentence', () => {
    expect(echoedPhrase('How do ethics and class teaching shape whole-class teaching and class teaching?')).toBe(
      'class teaching',
    );
    expect(echoedPhrase('What can interviews show about how nurses manage fatigue?')).toBeUndefined();
  });
});

describe('quality control reads the text itself', () => {
  const texts = (list: string[], prose = false) => list.map((text) => ({ component: 'methodology', text, prose }));

  it('names each writing fault a reader trips over', () => {
    const found = (text: string, prose = false) => checkWriting(texts([text], prose)).issues.map((i) => i.description);
    expect(found('Answers 3 secondary question(s).')).toEqual([expect.stringMatching(/"\(s\)"/)]);
    expect(found('Only two study/studies support it.')).toEqual([expect.stringMatching(/slash/)]);
    expect(found('Only 0 studies support the problem definition.')).toEqual([expect.stringMatching(/count of zero/)]);
    expect(found('The value is undefined here.')).toEqual([expect.stringMatching(/placeholder/)]);
    expect(found('The the plan.')).toEqual([expect.stringMatching(/twice/)]);
    expect(found('It ends in a cut wor…')).toEqual([expect.stringMatching(/cut off/)]);
    expect(found('A justification that stops in the middle of', true)).toEqual([expect.stringMatching(/midway/)]);
    expect(found('How do ethics and class teaching shape class teaching?')).toEqual([
      expect.stringMatching(/repeated within one sentence/),
    ]);
    expect(
      checkWriting(texts(['We will learn Statistics in the first term.', 'The statistics come later.'])).issues,
    ).toHaveLength(1);
    const area = 'whole-class steel pan lessons and pupils confidence';
    expect(
      checkWriting(texts(Array.from({ length: 6 }, (_, i) => `Part ${i}: ${area} in school.`))).issues.map(
        (i) => i.description,
      ),
    ).toEqual([expect.stringMatching(/pasted into many sections/)]);
    expect(
      checkWriting(
        texts([
          'The study works with written records, and this method is made for data of that kind.',
          'It builds on the researcher’s existing skills: Python and Latin.',
          'Learning statistics takes time early in the project.',
          'The plan respects “No budget”.',
        ]),
      ).issues,
    ).toEqual([]);
  });

  const plan = (total: string): DataCollectionPlan => ({
    collection_techniques: ['x'],
    recommended_tools: [],
    data_sources: ['y'],
    estimated_sample_size: 'n',
    timeline_breakdown: {
      preparation: { duration: '1 week', activities: [] },
      collection: { duration: '1 week', activities: [] },
      quality_check: { duration: '1 week', activities: [] },
      total_duration: total,
    },
    resource_requirements: [],
  });
  const model = {
    coherence_score: 0.95,
    feasibility_score: 0.95,
    issues_identified: [],
    recommendations: [],
    refinement_targets: [],
  };

  it('a plan that leaves most of the timeline unplanned is an issue and cannot pass', () => {
    const phd = { ...EXAMPLE_PROFILE, total_timeline: { value: 3, unit: 'years' as const } };
    const short = checkFeasibility(phd, plan('16 weeks'));
    expect(short.issues[0]).toMatchObject({ severity: 'major', component: 'data_collection' });
    expect(short.issues[0].description).toMatch(/16 weeks of the 156/);
    expect(combineQuality(model, short).validation_passed).toBe(false);
    expect(checkFeasibility(phd, plan('3 years')).issues).toEqual([]);
    expect(checkFeasibility(phd, plan('150 weeks')).score).toBe(1);
  });

  it('a draft with writing faults keeps coherence below the pass mark, the faults named for the refinement', () => {
    const writing = checkWriting(texts(['Answers 3 secondary question(s).']));
    const q = combineQuality(model, checkFeasibility(EXAMPLE_PROFILE, plan('26 weeks')), writing);
    expect(q.validation_passed).toBe(false);
    expect(q.coherence_score).toBeLessThan(0.7);
    expect(q.issues_identified.map((i) => i.description).join(' ')).toMatch(/"\(s\)"/);
    expect(q.recommendations.join(' ')).toMatch(/Rewrite/);
    expect(q.refinement_targets).toContain('methodology');
  });
});

describe('the proposal PDF', () => {
  const document: ProposalDocument = {
    title:
      'Detecting stiffness loss in a pedestrian footbridge from its vibration response over several seasons of traffic',
    problem_definition: {
      problem_statement: 'A statement.',
      main_research_question: 'What can the data show?',
      secondary_questions: ['What first?'],
      key_variables: ['stiffness loss'],
      preliminary_literature: [],
      refinement_history: [],
    },
    research_objectives: {
      general_objective: 'To answer it.',
      specific_objectives: ['Answer it.'],
      feasibility_notes: { timeline_assessment: 'It fits.', skills_required: [], risk_factors: [] },
      alignment_check: { coverage_analysis: 'Covered.', coherence_score: 'High' },
    },
    methodology: {
      recommended_methodology: 'Secondary analysis',
      methodology_type: 'quantitative',
      justification: 'It fits.',
      required_skills: [],
      timeline_fit: {
        is_feasible: true,
        estimated_duration: '6 weeks',
        key_phases: [{ name: 'All', duration: '6 weeks', description: 'Everything.' }],
      },
      alternative_methodologies: [
        {
          name: 'Field measurements.',
          pros: ['Real conditions.'],
          cons: ['Cannot be completed in time.', 'Needs sensors.'],
        },
      ],
    },
    data_collection_plan: {
      collection_techniques: ['Analysis'],
      recommended_tools: [],
      data_sources: ['Existing data'],
      estimated_sample_size: 'all of it',
      timeline_breakdown: {
        preparation: { duration: '1 week', activities: ['a'] },
        collection: { duration: '3 weeks', activities: ['b'] },
        quality_check: { duration: '2 weeks', activities: ['c'] },
        total_duration: '6 weeks',
      },
      resource_requirements: [],
    },
    quality_validation: {
      validation_passed: true,
      coherence_score: 0.9,
      feasibility_score: 0.9,
      overall_quality_score: 90,
      issues_identified: [],
      recommendations: [],
      requires_refinement: false,
      refinement_targets: [],
      feasibility_check: { plan_weeks: 6, timeline_weeks: 6, model_feasibility: 0.9, code_feasibility: 1 },
    },
  };

  it('has no line cut inside a word (the footer included), no "(s)" or doubled full stop, and says plainly when no literature matched', async () => {
    const { buffer } = await renderProposalPdf({
      workflowId: 'research-proposal-test',
      generatedAt: '2026-01-01T00:00:00Z',
      profile: EXAMPLE_PROFILE,
      proposal: document,
      history: [
        {
          round: 0,
          trigger: 'initial',
          overall: 90,
          coherence: 0.9,
          feasibility: 0.9,
          passed: true,
          planWeeks: 6,
          secondaryQuestions: 1,
          criticalIssues: 0,
          feedback: [],
        },
      ],
      chosenRound: 0,
      unresolvedIssues: [],
      review: [],
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'proposal-pdf-'));
    const file = path.join(dir, 'p.pdf');
    writeFileSync(file, buffer);
    let lines: string[];
    try {
      lines = (await pdfLines(file)).flat();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(cutLines(lines, [document.title])).toEqual([]);
    expect(lines.filter((l) => /^Research proposal · page \d+ of \d+$/.test(l)).length).toBeGreaterThan(0);
    const text = lines.join(' ');
    expect(text).not.toMatch(/\w\(s\)/);
    // List items written as sentences keep one mark each.
    expect(text).not.toMatch(/\.\.|\.;/);
    expect(text).toContain('Cons: Cannot be completed in time; Needs sensors.');
    expect(text).toContain('1 secondary question,');
    expect(text).toContain('No matching literature was found in the searched collection.');
  });
});
