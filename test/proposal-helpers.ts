/** Shared by the proposal tests: read a PDF's text and link annotations with pdfjs-dist, and test profiles. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { UserProfile } from '../flows/proposal/contract';
import { waitFor } from './helpers/wait';

export interface PdfContent {
  pages: number;
  /** Text per page, items joined with spaces. */
  pageTexts: string[];
  /** All text, whitespace collapsed. */
  text: string;
  links: Array<{ page: number; url: string }>;
  title: string | undefined;
}

export async function readPdf(file: string): Promise<PdfContent> {
  // pdfjs v4 ships ESM only; the legacy build runs on Node without a DOM.
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(file)), disableFontFace: true, verbosity: 0 })
    .promise;
  const pageTexts: string[] = [];
  const links: PdfContent['links'] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const content = await page.getTextContent();
    pageTexts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    for (const a of await page.getAnnotations()) {
      if (a.subtype === 'Link' && typeof a.url === 'string') links.push({ page: i, url: a.url });
    }
  }
  const meta = await doc.getMetadata();
  const title = (meta.info as { Title?: string }).Title;
  await doc.destroy();
  return { pages: doc.numPages, pageTexts, text: pageTexts.join(' ').replace(/\s+/g, ' '), links, title };
}

/** Text as pdfjs extracts it may break lines anywhere: compare with whitespace removed. */
export const squash = (s: string) => s.replace(/\s+/g, '');

const profileFile = (name: string) =>
  JSON.parse(readFileSync(path.resolve(__dirname, '..', 'data', 'profiles', `${name}.json`), 'utf8')) as UserProfile;

/** 10 h/week for 3 months: the first two versions overrun the timeline, the third fits. */
export const TIGHT_PROFILE = profileFile('psychology-tight-timeline');
/** Non-ASCII context (Zürich, São Paulo) for the PDF font. */
export const CLIMATE_PROFILE = profileFile('climate-phd');
/** 4 h/week for 1 month: no version can fit, whatever the refinement. */
export const IMPOSSIBLE_PROFILE: UserProfile = {
  academic_program: "Master's",
  field_of_study: 'Computer Science',
  research_area: 'Multi-agent reinforcement learning for traffic control',
  weekly_hours: 4,
  total_timeline: { value: 1, unit: 'months' },
  existing_skills: ['Python'],
  missing_skills: ['Reinforcement Learning'],
  constraints: ['No budget'],
};

/** Waits for a workflow to answer a query the way the test wants (a query may fail while it starts). */
export function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  return waitFor(probe, what, { timeoutMs, everyMs: 100, retryErrors: true });
}
