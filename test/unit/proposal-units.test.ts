/** The proposal flow's pure parts, without Temporal: state machine, quality rules, parsers, citations. (The stand-in's rules: test/unit/standin-proposal.test.ts.) */
import { ApplicationFailure } from '@temporalio/common';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { citeFromHits, toLiteratureHit, type LiteratureHit } from '../../flows/proposal/activities';
import {
  EXAMPLE_PROFILE,
  httpUrlSchema,
  parseTimeline,
  parseWeeklyHours,
  PROPOSAL_STATES,
  proposalInput,
  timelineWeeks,
  type DataCollectionPlan,
  type QualityValidation,
} from '../../flows/proposal/contract';
import { Interview } from '../../flows/proposal/workflow/interview';
import {
  checkFeasibility,
  chooseBest,
  combineQuality,
  parseDurationWeeks,
  type ModelQualityAssessment,
} from '../../flows/proposal/quality';
import {
  isValidTransition,
  ProposalStateMachine,
  TERMINAL_STATES,
  TRANSITIONS,
} from '../../flows/proposal/workflow/state-machine';

describe('state machine', () => {
  const clock = () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    return () => new Date((t += 1000)).toISOString();
  };

  it('walks the main path and records each transition with its time', () => {
    const sm = new ProposalStateMachine(clock());
    for (const s of [
      'PROBLEM_FORMULATION',
      'OBJECTIVES',
      'METHODOLOGY',
      'DATA_COLLECTION',
      'QUALITY_CONTROL',
      'REFINEMENT',
      'PROBLEM_FORMULATION',
    ] as const)
      sm.transition(s);
    expect(sm.state).toBe('PROBLEM_FORMULATION');
    expect(sm.history).toHaveLength(7);
    expect(sm.history[0]).toEqual({ from: 'INIT', to: 'PROBLEM_FORMULATION', at: '2026-01-01T00:00:01.000Z' });
    sm.history.pop(); // a copy: the machine's own log is unchanged
    expect(sm.history).toHaveLength(7);
  });

  it('rejects transitions the table does not allow, non-retryably', () => {
    const sm = new ProposalStateMachine(clock());
    let error: unknown;
    try {
      sm.transition('DATA_COLLECTION');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('InvalidStateTransition');
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
    expect(sm.state).toBe('INIT');
    expect(sm.history).toHaveLength(0);
    sm.transition('INTERVIEWING');
    expect(() => sm.transition('QUALITY_CONTROL')).toThrow(/INTERVIEWING → QUALITY_CONTROL/);
  });

  it('has terminal states without exits, ERROR reachable from every working state, and every state reachable', () => {
    for (const t of TERMINAL_STATES) expect(TRANSITIONS[t]).toEqual([]);
    for (const s of PROPOSAL_STATES)
      if (!TERMINAL_STATES.includes(s)) expect(isValidTransition(s, 'ERROR'), s).toBe(true);
    const seen = new Set<string>(['INIT']);
    const queue = ['INIT'] as Array<keyof typeof TRANSITIONS>;
    while (queue.length) {
      for (const next of TRANSITIONS[queue.shift()!]) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    expect([...seen].sort()).toEqual([...PROPOSAL_STATES].sort());
    expect(isValidTransition('COMPLETE', 'REFINEMENT')).toBe(false);
    expect(isValidTransition('QUALITY_CONTROL', 'COMPLETE')).toBe(false); // the PDF comes first
  });
});

describe('quality control by code', () => {
  const plan = (total: string): DataCollectionPlan => ({
    collection_techniques: ['x'],
    recommended_tools: [],
    data_sources: ['y'],
    estimated_sample_size: 'n',
    timeline_breakdown: {
      preparation: { duration: '2 weeks', activities: [] },
      collection: { duration: '3 months', activities: [] },
      quality_check: { duration: '1 week', activities: [] },
      total_duration: total,
    },
    resource_requirements: [],
  });
  const model = (
    coherence: number,
    feasibility: number,
    issues: ModelQualityAssessment['issues_identified'] = [],
  ): ModelQualityAssessment => ({
    coherence_score: coherence,
    feasibility_score: feasibility,
    issues_identified: issues,
    recommendations: ['r'],
    refinement_targets: [],
  });

  it('reads durations as weeks, ranges at their upper end', () => {
    expect(parseDurationWeeks('14 weeks')).toBe(14);
    expect(parseDurationWeeks('3-4 months')).toBe(17.3);
    expect(parseDurationWeeks('1 year and 2 months')).toBe(60.7);
    expect(parseDurationWeeks('10 days')).toBe(1.4);
    expect(parseDurationWeeks('about a semester')).toBeNull();
    expect(timelineWeeks({ value: 6, unit: 'months' })).toBe(26);
  });

  it('checks the plan against the timeline: fits → 1, overruns → ratio and a critical issue, far short → an issue', () => {
    expect(checkFeasibility(EXAMPLE_PROFILE, plan('24 weeks'))).toMatchObject({
      planWeeks: 24,
      timelineWeeks: 26,
      score: 1,
      issues: [],
    });
    // 16 of 26 weeks: most of a plan, but the rest of the time is unplanned.
    const short = checkFeasibility(EXAMPLE_PROFILE, plan('16 weeks'));
    expect(short.score).toBeLessThan(1);
    expect(short.issues[0]).toMatchObject({ severity: 'major', component: 'data_collection' });
    const over = checkFeasibility(EXAMPLE_PROFILE, plan('40 weeks'));
    expect(over.score).toBe(0.65);
    expect(over.issues[0]).toMatchObject({ severity: 'critical', component: 'data_collection' });
    // No stated total: the phases add up.
    expect(checkFeasibility(EXAMPLE_PROFILE, plan('as needed')).planWeeks).toBe(16);
  });

  it('applies the pass rule: both scores ≥ 0.7 and no critical issue; overall = mean × 100', () => {
    const fits = checkFeasibility(EXAMPLE_PROFILE, plan('24 weeks'));
    expect(combineQuality(model(0.7, 0.7), fits)).toMatchObject({
      validation_passed: true,
      overall_quality_score: 70,
      requires_refinement: false,
      refinement_targets: [],
    });
    expect(combineQuality(model(0.69, 0.9), fits).validation_passed).toBe(false);
    const critical = combineQuality(
      model(0.95, 0.95, [{ severity: 'critical', component: 'methodology', description: 'd', impact: 'i' }]),
      fits,
    );
    expect(critical).toMatchObject({ validation_passed: false, requires_refinement: true, overall_quality_score: 95 });
    // The code's feasibility caps the model's optimism.
    const over = combineQuality(model(0.9, 0.95), checkFeasibility(EXAMPLE_PROFILE, plan('30 weeks')));
    expect(over.feasibility_score).toBe(0.87);
    expect(over.validation_passed).toBe(false);
    expect(over.feasibility_check).toEqual({
      plan_weeks: 30,
      timeline_weeks: 26,
      model_feasibility: 0.95,
      code_feasibility: 0.87,
    });
    expect(over.refinement_targets).toEqual(expect.arrayContaining(['problem_definition', 'data_collection']));
  });

  it('keeps a passing version over a higher-scoring failing one, and the latest on ties', () => {
    const v = (round: number, passed: boolean, overall: number) => ({
      round,
      quality: { validation_passed: passed, overall_quality_score: overall } as QualityValidation,
    });
    expect(chooseBest([v(0, false, 90), v(1, true, 75), v(2, false, 95)])?.round).toBe(1);
    expect(chooseBest([v(0, false, 60), v(1, false, 80), v(2, false, 80)])?.round).toBe(2);
    expect(chooseBest([])).toBeUndefined();
  });
});

describe('interview', () => {
  it('parses hours and timelines, rejecting what is not a number', () => {
    expect(parseWeeklyHours('15')).toEqual({ ok: true, value: 15 });
    expect(parseWeeklyHours(' 20 hours per week ')).toEqual({ ok: true, value: 20 });
    for (const bad of ['ten', '15.5', '0', '81', '', '10-15']) expect(parseWeeklyHours(bad).ok, bad).toBe(false);
    expect(parseTimeline('6 months')).toEqual({ ok: true, value: { value: 6, unit: 'months' } });
    expect(parseTimeline('1 yr')).toEqual({ ok: true, value: { value: 1, unit: 'years' } });
    expect(parseTimeline('12 Weeks')).toEqual({ ok: true, value: { value: 12, unit: 'weeks' } });
    for (const bad of ['half a year', '6', 'months', '11 years']) expect(parseTimeline(bad).ok, bad).toBe(false);
  });

  it('asks only what the prefill lacks, rejects stale and bad answers, and builds the profile', () => {
    const interview = new Interview({ ...EXAMPLE_PROFILE, weekly_hours: undefined, additional_context: undefined });
    expect(interview.asked).toBe(2);
    expect(interview.current).toMatchObject({ field: 'weekly_hours', number: 1, of: 2 });
    expect(() => interview.check({ answer: '10', questionId: 'constraints' })).toThrow(/not the open one/);
    expect(() => interview.check({ answer: 'a lot', questionId: 'weekly_hours' })).toThrow(/weekly_hours/);
    expect(() => interview.check({ nope: true })).toThrow(/invalid answer/);
    // An answer must name its question.
    expect(() => interview.check({ answer: '12' })).toThrow(/invalid answer: questionId/);
    expect(interview.check({ answer: '12', questionId: 'weekly_hours' })).toEqual({ repeat: false });
    expect(interview.accept({ answer: '12', questionId: 'weekly_hours' })).toMatchObject({
      field: 'additional_context',
    });
    // The same answer again is a repeat (no-op); a different one is refused; neither fills the open question.
    expect(interview.check({ answer: '12', questionId: 'weekly_hours' })).toEqual({ repeat: true });
    expect(interview.accept({ answer: '12', questionId: 'weekly_hours' })).toMatchObject({
      field: 'additional_context',
    });
    expect(() => interview.check({ answer: '14', questionId: 'weekly_hours' })).toThrow(/already answered/);
    expect(interview.answered).toBe(1);
    // Histories from before questionId was required replay through accept without it.
    expect(interview.accept({ answer: 'skip' })).toBeNull();
    expect(interview.done).toBe(true);
    expect(() => interview.check({ answer: 'x', questionId: 'constraints' })).toThrow(/no interview question is open/);
    // A huge question id is refused without being echoed.
    let message = '';
    try {
      interview.check({ answer: 'x', questionId: 'q'.repeat(1_200_000) });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/questionId/);
    expect(message.length).toBeLessThan(500);
    const profile = interview.profile();
    expect(profile.weekly_hours).toBe(12);
    expect('additional_context' in profile).toBe(false);
  });

  it('splits skill lists on commas and treats "none" as empty', () => {
    const interview = new Interview({ ...EXAMPLE_PROFILE, existing_skills: undefined, constraints: undefined });
    interview.accept({ answer: ' Python ,  Research and Development;R ' });
    interview.accept({ answer: 'None' });
    expect(interview.profile()).toMatchObject({
      existing_skills: ['Python', 'Research and Development', 'R'],
      constraints: [],
    });
  });
});

describe('input contract', () => {
  it('requires a complete profile in autonomous mode and applies defaults', () => {
    const bad = proposalInput.safeParse({ mode: 'autonomous', profile: { research_area: 'x y z' } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toContain('profile.weekly_hours');
    expect(proposalInput.parse({ mode: 'interactive', profile: { research_area: 'Loneliness' } })).toMatchObject({
      maxRefinements: 3,
      review: false,
      idleTimeoutMinutes: 10080,
    });
    expect(proposalInput.safeParse({ mode: 'interactive', extra: 1 }).success).toBe(false);
    expect(proposalInput.safeParse({ mode: 'autonomous', profile: EXAMPLE_PROFILE, maxRefinements: -1 }).success).toBe(
      false,
    );
  });
});

describe('literature', () => {
  const hit = (id: string, url: string): LiteratureHit => ({
    id,
    title: `T ${id}`,
    url,
    source: 'S',
    year: 2020,
    authors: null,
    snippet: '',
    keywords: [],
    score: 1,
  });
  const hits = [hit('a', 'https://arxiv.org/abs/1'), hit('b', 'https://doi.org/10.1/b')];

  it('cites only search results: invented ids and URLs are dropped, duplicates merged', () => {
    const { entries, dropped } = citeFromHits(
      [
        { result_id: 'a', relevance_note: 'n1' },
        { result_id: 'made-up', relevance_note: 'n2' },
        { result_id: 'https://example.org/invented', relevance_note: 'n3' },
        { result_id: 'https://doi.org/10.1/b', relevance_note: 'n4' },
        { result_id: 'a', relevance_note: 'again' },
      ],
      hits,
    );
    expect(entries).toEqual([
      { title: 'T a', url: 'https://arxiv.org/abs/1', relevance_note: 'n1', source: 'S' },
      { title: 'T b', url: 'https://doi.org/10.1/b', relevance_note: 'n4', source: 'S' },
    ]);
    expect(dropped).toEqual(['made-up', 'https://example.org/invented']);
  });

  it('ignores search documents without a well-formed http(s) URL', () => {
    expect(toLiteratureHit('x', 1, { title: 'T', url: 'ftp://files.example.org/p.pdf' })).toBeUndefined();
    expect(toLiteratureHit('x', 1, { title: 'T', url: 'not a url' })).toBeUndefined();
    expect(toLiteratureHit('x', 1, { url: 'https://arxiv.org/abs/1' })).toBeUndefined();
    expect(toLiteratureHit('x', 1, { title: 'T', link: 'https://arxiv.org/abs/1', venue: 'arXiv' })).toMatchObject({
      url: 'https://arxiv.org/abs/1',
      source: 'arXiv',
    });
  });

  it('ships a corpus of well-formed, unique entries', () => {
    const corpus = JSON.parse(
      readFileSync(path.resolve(__dirname, '..', '..', 'data', 'search', 'literature.json'), 'utf8'),
    ) as Array<Record<string, unknown>>;
    expect(corpus.length).toBeGreaterThanOrEqual(50);
    expect(new Set(corpus.map((e) => e.id)).size).toBe(corpus.length);
    expect(new Set(corpus.map((e) => e.url)).size).toBe(corpus.length);
    for (const e of corpus) {
      expect(httpUrlSchema.safeParse(e.url).success, String(e.url)).toBe(true);
      expect(toLiteratureHit(String(e.id), 1, e), String(e.id)).toBeDefined();
      expect(typeof e.abstract === 'string' && typeof e.venue === 'string' && Array.isArray(e.keywords)).toBe(true);
    }
  });
});
