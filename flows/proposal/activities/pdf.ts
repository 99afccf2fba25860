/**
 * Renders a research proposal to PDF with pdfkit: title, every section, the literature with
 * clickable link annotations, the quality scores and the refinement history.
 *
 * DejaVu Sans (shipped in data/fonts with its licence) is embedded so names like "Zürich" or
 * "Başar" print correctly; pdfkit's built-in Helvetica only covers WinAnsi.
 */
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { DATA_DIR } from '../../../backends';
import type { ArtifactStore } from '../../../backends/artifacts';
import { runArtifactName } from '../../lib/activities/artifact-names';
import {
  formatTimeline,
  type ProposalDocument,
  type QualityIssue,
  type RefinementRound,
  type UserProfile,
} from '../contract';

export interface ProposalPdfInput {
  workflowId: string;
  /** The run writing it (with its namespace): the file is named per run. */
  runId?: string;
  namespace?: string;
  /** Workflow time of the render, ISO 8601 (keeps the PDF's date deterministic per run). */
  generatedAt: string;
  profile: UserProfile;
  proposal: ProposalDocument;
  history: RefinementRound[];
  chosenRound: number;
  unresolvedIssues: QualityIssue[];
  review: Array<{ decision: string; comments?: string; at: string }>;
}

export interface ProposalPdfInfo {
  /** Where the PDF is: the file (local store) or its gs:// URI. Results before references have only this. */
  path: string;
  /** The artifact reference the console and the CLI resolve through the store. */
  ref?: string;
  pages: number;
  bytes: number;
  /** Distinct URLs with link annotations (a wrapped title gets one annotation per line). */
  links: number;
}

const FONT_DIR = path.join(DATA_DIR, 'fonts');
const BODY = path.join(FONT_DIR, 'DejaVuSans.ttf');
const BOLD = path.join(FONT_DIR, 'DejaVuSans-Bold.ttf');
const LINK_COLOR = '#1a4d8f';
const TEXT_COLOR = '#1b1b1b';
const MUTED = '#555555';

/**
 * Safe file name for a run's PDF (ids may contain anything the caller chose): unique per run,
 * so no other run's PDF, and no later run's under the same id, replaces the one a result names.
 */
export function pdfFileName(workflowId: string, run: { runId?: string; namespace?: string } = {}): string {
  return `${runArtifactName({ workflowId, runId: run.runId ?? '', namespace: run.namespace }, 80)}.pdf`;
}

export function renderProposalPdf(input: ProposalPdfInput): Promise<{ buffer: Buffer; pages: number; links: number }> {
  const { proposal, profile } = input;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 56, bottom: 60, left: 60, right: 60 },
    bufferPages: true,
    info: {
      Title: proposal.title,
      Author: 'agent-flows · writeResearchProposal',
      Subject: `Research proposal: ${profile.research_area}`,
      Keywords: proposal.problem_definition.key_variables.join(', '),
      CreationDate: new Date(input.generatedAt),
    },
  });
  doc.registerFont('Body', BODY);
  doc.registerFont('Bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const linked = new Set<string>();

  const ensureRoom = (height: number) => {
    if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
  };
  const heading = (text: string) => {
    ensureRoom(60);
    doc.moveDown(0.8).font('Bold').fontSize(14).fillColor(TEXT_COLOR).text(text, left, doc.y, { width });
    doc
      .moveTo(left, doc.y + 2)
      .lineTo(left + width, doc.y + 2)
      .lineWidth(0.5)
      .strokeColor('#999999')
      .stroke();
    doc.moveDown(0.5);
  };
  const label = (text: string) => {
    ensureRoom(30);
    doc.moveDown(0.3).font('Bold').fontSize(10.5).fillColor(TEXT_COLOR).text(text, left, doc.y, { width });
  };
  const para = (text: string, options: { color?: string; size?: number; align?: 'justify' | 'left' } = {}) => {
    doc
      .font('Body')
      .fontSize(options.size ?? 10)
      .fillColor(options.color ?? TEXT_COLOR)
      .text(text, left, doc.y, { width, align: options.align ?? 'justify' });
  };
  const field = (name: string, value: string) => {
    doc
      .font('Bold')
      .fontSize(10)
      .fillColor(TEXT_COLOR)
      .text(`${name}: `, left, doc.y, { width, continued: true })
      .font('Body')
      .text(value);
  };
  const bullets = (items: string[], numbered = false) => {
    if (items.length === 0) {
      para('(none)', { color: MUTED });
      return;
    }
    items.forEach((item, i) => {
      ensureRoom(16);
      const y = doc.y;
      doc
        .font('Body')
        .fontSize(10)
        .fillColor(TEXT_COLOR)
        .text(numbered ? `${i + 1}.` : '•', left + 4, y, { width: 18 });
      doc.text(item, left + 22, y, { width: width - 22 });
      doc.moveDown(0.15);
    });
    doc.x = left;
  };

  // --- Title block
  doc.font('Bold').fontSize(20).fillColor(TEXT_COLOR).text(proposal.title, left, doc.y, { width });
  doc.moveDown(0.3);
  para(`Research proposal · ${profile.academic_program}, ${profile.field_of_study}`, { color: MUTED, size: 11 });
  para(`Generated ${input.generatedAt.slice(0, 10)} by writeResearchProposal (${input.workflowId})`, {
    color: MUTED,
    size: 9,
    // A long workflow id does not break: justified, the line's words would be spread apart.
    align: 'left',
  });
  const qv = proposal.quality_validation;
  doc.moveDown(0.4);
  para(
    `Quality: ${qv.overall_quality_score.toFixed(1)}/100 (${qv.validation_passed ? 'passed' : 'not passed'}) · coherence ${qv.coherence_score.toFixed(2)} · feasibility ${qv.feasibility_score.toFixed(2)} · version ${input.chosenRound + 1} of ${input.history.length}`,
    { size: 10 },
  );

  // --- 1. Profile
  heading('1. Researcher profile');
  field('Program', profile.academic_program);
  field('Field of study', profile.field_of_study);
  field('Research area', profile.research_area);
  field('Time', `${profile.weekly_hours} hours per week for ${formatTimeline(profile.total_timeline)}`);
  field('Existing skills', profile.existing_skills.join(', ') || 'none');
  field('Skills to learn', profile.missing_skills.join(', ') || 'none');
  field('Constraints', profile.constraints.join(', ') || 'none');
  if (profile.additional_context) field('Context', profile.additional_context);

  // --- 2. Problem
  const pd = proposal.problem_definition;
  heading('2. Problem definition');
  label('Problem statement');
  para(pd.problem_statement);
  label('Main research question');
  para(pd.main_research_question);
  label('Secondary questions');
  bullets(pd.secondary_questions, true);
  label('Key variables');
  para(pd.key_variables.join(' · '));

  // --- 3. Literature
  heading('3. Preliminary literature');
  if (pd.preliminary_literature.length === 0)
    para('No matching literature was found in the searched collection.', { color: MUTED });
  pd.preliminary_literature.forEach((entry, i) => {
    ensureRoom(60);
    doc
      .font('Bold')
      .fontSize(10)
      .fillColor(TEXT_COLOR)
      .text(`[${i + 1}] `, left, doc.y, { width, continued: true });
    doc.font('Bold').fillColor(LINK_COLOR).text(entry.title, { link: entry.url, underline: true });
    doc.font('Body').fontSize(9).fillColor(MUTED).text(`${entry.source} · `, left, doc.y, { width, continued: true });
    doc.fillColor(LINK_COLOR).text(entry.url, { link: entry.url, underline: false });
    linked.add(entry.url);
    doc.font('Body').fontSize(10).fillColor(TEXT_COLOR).text(entry.relevance_note, left, doc.y, { width });
    doc.moveDown(0.4);
  });

  // --- 4. Objectives
  const ro = proposal.research_objectives;
  heading('4. Research objectives');
  label('General objective');
  para(ro.general_objective);
  label('Specific objectives');
  bullets(ro.specific_objectives, true);
  label('Feasibility notes');
  para(ro.feasibility_notes.timeline_assessment);
  field('Skills required', ro.feasibility_notes.skills_required.join(', ') || 'none');
  label('Risk factors');
  bullets(ro.feasibility_notes.risk_factors);
  label(`Alignment (${ro.alignment_check.coherence_score})`);
  para(ro.alignment_check.coverage_analysis);

  // --- 5. Methodology
  const me = proposal.methodology;
  heading('5. Methodology');
  field('Recommended', `${me.recommended_methodology} (${me.methodology_type})`);
  label('Justification');
  para(me.justification);
  field('Required skills', me.required_skills.join(', ') || 'none');
  field(
    'Estimated duration',
    `${me.timeline_fit.estimated_duration} (${me.timeline_fit.is_feasible ? 'fits the timeline' : 'does not fit the timeline'})`,
  );
  label('Key phases');
  bullets(
    me.timeline_fit.key_phases.map((p) => `${p.name} (${p.duration})${p.description ? `: ${p.description}` : ''}`),
  );
  if (me.alternative_methodologies.length) {
    label('Alternatives');
    // Items may end in their own full stop (models write them as sentences): one mark, not two.
    const items = (xs: string[]) =>
      xs
        .map((x) => x.trim().replace(/[.;]+$/, ''))
        .filter(Boolean)
        .join('; ') || '-';
    bullets(
      me.alternative_methodologies.map(
        (a) => `${a.name.trim().replace(/\.+$/, '')}. Pros: ${items(a.pros)}. Cons: ${items(a.cons)}.`,
      ),
    );
  }

  // --- 6. Data collection
  const dc = proposal.data_collection_plan;
  heading('6. Data collection plan');
  field('Techniques', dc.collection_techniques.join(', '));
  field('Data sources', dc.data_sources.join(', '));
  field('Estimated sample size', dc.estimated_sample_size);
  label('Recommended tools');
  bullets(
    dc.recommended_tools.map((t) => `${t.name} (${t.type}; ${t.accessibility}; learning curve: ${t.learning_curve})`),
  );
  label('Timeline');
  const tb = dc.timeline_breakdown;
  bullets([
    `Preparation, ${tb.preparation.duration}: ${tb.preparation.activities.join('; ') || '-'}`,
    `Collection, ${tb.collection.duration}: ${tb.collection.activities.join('; ') || '-'}`,
    `Quality check, ${tb.quality_check.duration}: ${tb.quality_check.activities.join('; ') || '-'}`,
    `Total: ${tb.total_duration}`,
  ]);
  label('Resources');
  bullets(dc.resource_requirements);

  // --- 7. Quality control
  heading('7. Quality control');
  field('Overall', `${qv.overall_quality_score.toFixed(1)} / 100 = ((coherence + feasibility) / 2) × 100`);
  field('Coherence', qv.coherence_score.toFixed(2));
  field(
    'Feasibility',
    `${qv.feasibility_score.toFixed(2)} (model ${qv.feasibility_check.model_feasibility.toFixed(2)}, code ${qv.feasibility_check.code_feasibility.toFixed(2)}: plan ${qv.feasibility_check.plan_weeks ?? '?'} weeks vs ${qv.feasibility_check.timeline_weeks} weeks available)`,
  );
  field('Result', qv.validation_passed ? 'passed (both scores ≥ 0.70, no critical issue)' : 'not passed');
  label('Issues');
  bullets(
    qv.issues_identified.map(
      (i) => `[${i.severity}] ${i.component}: ${i.description}${i.impact ? ` (${i.impact})` : ''}`,
    ),
  );
  label('Recommendations');
  bullets(qv.recommendations);
  if (input.unresolvedIssues.length) {
    label('Unresolved after the refinement limit');
    bullets(input.unresolvedIssues.map((i) => `[${i.severity}] ${i.description}`));
  }

  // --- 8. Refinement history
  heading('8. Refinement history');
  bullets(
    input.history.map((r) => {
      const chosen = r.round === input.chosenRound ? ' ← this version' : '';
      const why =
        r.trigger === 'initial'
          ? 'first version'
          : r.trigger === 'review'
            ? 'after review comments'
            : 'after failed quality control';
      const fb = r.feedback.length ? ` Feedback: ${r.feedback.join(' ')}` : '';
      const questions = `${r.secondaryQuestions} secondary question${r.secondaryQuestions === 1 ? '' : 's'}`;
      return `Version ${r.round + 1} (${why}): overall ${r.overall.toFixed(1)}, coherence ${r.coherence.toFixed(2)}, feasibility ${r.feasibility.toFixed(2)}, ${r.passed ? 'passed' : 'not passed'}, ${questions}, plan ${r.planWeeks ?? '?'} weeks.${fb}${chosen}`;
    }),
  );
  if (input.review.length) {
    label('Review');
    bullets(
      input.review.map(
        (r) => `${r.at.slice(0, 16).replace('T', ' ')}: ${r.decision}${r.comments ? ` (“${r.comments}”)` : ''}`,
      ),
    );
  }

  // --- Footer with page numbers (drawn last, when the page count is known). No running title:
  // the title is on the first page, and a title repeated (or cut to fit) on every page is noise.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Body')
      .fontSize(8)
      .fillColor(MUTED)
      .text(`Research proposal · page ${i + 1} of ${range.count}`, left, doc.page.height - 36, {
        width,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done.then((buffer) => ({ buffer, pages: range.count, links: linked.size }));
}

/**
 * Renders and puts the PDF in the artifact store under `research-proposal/<run name>.pdf`. The
 * store writes whole objects (the local one through a temporary file per call), so a retried
 * render never leaves half a PDF nor takes another attempt's file away.
 */
export async function writeProposalPdf(input: ProposalPdfInput, store: ArtifactStore): Promise<ProposalPdfInfo> {
  const { buffer, pages, links } = await renderProposalPdf(input);
  const stored = await store.put(`research-proposal/${pdfFileName(input.workflowId, input)}`, buffer, {
    contentType: 'application/pdf',
  });
  return { path: stored.location, ref: stored.ref, pages, bytes: buffer.length, links };
}
