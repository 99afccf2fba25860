/**
 * Bring your own data, proposals: a researcher's BibTeX library given to the worker at run time
 * (LITERATURE_FILE) is indexed by meaning beside the bundled corpus, and a proposal on its topic
 * cites from it, end to end on the harness. An entry without a DOI or URL is never cited, and a
 * malformed file fails the run once, naming the file and the line, instead of retrying forever.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_DIR } from '../backends';
import { EmbeddedSearch } from '../backends/search/embedded';
import { BibliographyError, parseBibliography, readBibliography } from '../backends/search/bibliography';
import { researchProposalFlow, type UserProfile } from '../flows/proposal/contract';
import { createHarness, type Harness } from './helpers/harness';

const dir = mkdtempSync(path.join(tmpdir(), 'byod-literature-'));

/** A small emergency-medicine library: the bundled corpus (agents, ML) has nothing on sepsis. */
const LIBRARY = String.raw`
@string{ccm = {Critical Care Medicine}}

@article{seymour2016qsofa,
  title    = {Assessment of Clinical Criteria for Sepsis: For the Third International Consensus Definitions for Sepsis and Septic Shock (Sepsis-3)},
  author   = {Seymour, Christopher W. and Liu, Vincent X. and Iwashyna, Theodore J. and Brunkhorst, Frank M.},
  journal  = {JAMA},
  year     = {2016},
  doi      = {10.1001/jama.2016.0288},
  abstract = {Validates the quick Sequential Organ Failure Assessment (qSOFA) score for identifying patients with suspected infection at risk of sepsis outside the intensive care unit.},
  keywords = {sepsis, qSOFA, early warning score, emergency department}
}

@article{churpek2017news,
  title    = {Quick Sepsis-related Organ Failure Assessment, Systemic Inflammatory Response Syndrome, and Early Warning Scores for Detecting Clinical Deterioration in Infected Patients outside the Intensive Care Unit},
  author   = {Churpek, Matthew M. and Snyder, Ashley and Han, Xuan},
  journal  = ccm,
  year     = 2017,
  url      = {https://www.atsjournals.org/doi/10.1164/rccm.201604-0854OC},
  abstract = {Compares qSOFA, SIRS and the National Early Warning Score (NEWS) for predicting in-hospital mortality and ICU transfer of infected ward and emergency department patients.},
  keywords = {sepsis, early warning score, clinical deterioration}
}

@inproceedings{nolink2023triage,
  title    = {Machine learning triage for sepsis early warning in the emergency department},
  author   = {Nobody, Anne},
  booktitle= {Unpublished workshop notes},
  year     = {2023},
  abstract = {Machine learning early warning of sepsis at emergency department triage, compared with qSOFA and NEWS.},
  keywords = {sepsis, early warning score, emergency department, machine learning, triage}
}

@book{mueller2019,
  title     = {{\"U}ber Fr{\"u}hwarnsysteme im Krankenhaus},
  author    = {M{\"u}ller, Hans},
  publisher = {Springer},
  year      = {2019},
  url       = {https://example.org/fruehwarnsysteme}
}
`;

const PROFILE: UserProfile = {
  academic_program: "Master's",
  field_of_study: 'Emergency Medicine',
  research_area: 'Sepsis early warning scores in the emergency department',
  weekly_hours: 20,
  total_timeline: { value: 9, unit: 'months' },
  existing_skills: ['Statistics', 'R'],
  missing_skills: ['Machine Learning'],
  constraints: ['Retrospective hospital records only'],
  additional_context: 'Compare qSOFA and NEWS for detecting sepsis at triage.',
};

describe('bring your own library: a BibTeX file at run time', () => {
  const bib = path.join(dir, 'my-library.bib');
  let h: Harness;

  beforeAll(async () => {
    writeFileSync(bib, LIBRARY);
    h = await createHarness({ config: { LITERATURE_FILE: bib } });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads BibTeX with Citation.js: DOI linked through doi.org, string macros, TeX; no link, no entry', () => {
    const { documents, withoutLink } = parseBibliography(bib, LIBRARY);
    expect(withoutLink).toEqual(['nolink2023triage']);
    const byKey = Object.fromEntries(documents.map((d) => [d.citation_key, d]));
    expect(byKey.seymour2016qsofa).toMatchObject({
      id: 'own-seymour2016qsofa',
      url: 'https://doi.org/10.1001/jama.2016.0288',
      year: 2016,
      venue: 'JAMA',
      authors: 'Seymour, C. W. et al.',
    });
    expect(byKey.seymour2016qsofa.keywords).toContain('qSOFA');
    expect(byKey.churpek2017news).toMatchObject({
      url: 'https://www.atsjournals.org/doi/10.1164/rccm.201604-0854OC',
      venue: 'Critical Care Medicine',
    });
    expect(byKey.mueller2019).toMatchObject({ title: 'Über Frühwarnsysteme im Krankenhaus', authors: 'Müller, H.' });
  });

  it('a proposal on the topic cites the library through the worker setting, never the entry without a link', async () => {
    const out = await h.run(researchProposalFlow, { mode: 'autonomous', profile: PROFILE, maxRefinements: 0 });
    const cited = out.proposal!.problem_definition.preliminary_literature;
    const urls = cited.map((c) => c.url);
    expect(urls).toEqual(expect.arrayContaining(['https://doi.org/10.1001/jama.2016.0288']));
    expect(cited.some((c) => /Machine learning triage/i.test(c.title))).toBe(false);
    // Every citation is a real link of the library or of the bundled corpus.
    for (const url of urls) expect(url).toMatch(/^https:\/\//);
  }, 120_000);

  it('CSL-JSON works too; a malformed file names the file and the line', async () => {
    const csl = path.join(dir, 'zotero.json');
    writeFileSync(
      csl,
      JSON.stringify([
        {
          id: 'a',
          type: 'article-journal',
          title: 'Lactate in sepsis',
          DOI: 'doi:10.1000/lactate',
          issued: { 'date-parts': [[2020]] },
        },
        { id: 'b', type: 'article-journal', title: 'No link either' },
      ]),
    );
    const { documents, withoutLink } = await readBibliography(csl);
    expect(documents.map((d) => d.url)).toEqual(['https://doi.org/10.1000/lactate']);
    expect(withoutLink).toEqual(['b']);

    const broken = path.join(dir, 'broken.bib');
    writeFileSync(
      broken,
      '@article{ok, title = {Fine}, url = {https://example.org/a}}\n\n@article{bad\n  title = {Oops},\n}\n',
    );
    await expect(readBibliography(broken)).rejects.toThrow(BibliographyError);
    await expect(readBibliography(broken)).rejects.toThrow(
      /^broken\.bib:4: malformed BibTeX \(column \d+, in entry "bad" from line 3\)/,
    );
    writeFileSync(broken, '[{"id": "x",\n "title": }]');
    await expect(readBibliography(broken.replace(/bib$/, 'bib'))).rejects.toThrow(/broken\.bib/);
  });
});

describe('a malformed library at run time', () => {
  let h: Harness;
  const bad = path.join(mkdtempSync(path.join(tmpdir(), 'byod-bad-')), 'lab-library.bib');

  beforeAll(async () => {
    writeFileSync(
      bad,
      '@article{fine, title = {Sepsis}, doi = {10.1000/1}}\n@article{broken,\n  title = {Sepsis scores\n  year = 2020\n}\n',
    );
    // The worker starts: the library is read when a search first needs it, so a bad file is no crash loop.
    h = await createHarness({ config: { LITERATURE_FILE: bad } });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    rmSync(path.dirname(bad), { recursive: true, force: true });
  });

  it('is said when the worker starts (preload), and every search of the collection fails with it', async () => {
    const search = new EmbeddedSearch(path.join(DATA_DIR, 'search'), {
      extraDocuments: {
        literature: { setting: 'LITERATURE_FILE', load: () => readBibliography(bad).then((b) => b.documents) },
      },
    });
    const reported: string[] = [];
    await search.preload(['literature'], (collection, err) =>
      reported.push(`${collection}: ${(err as Error).message}`),
    );
    expect(reported).toEqual([
      expect.stringMatching(/^literature: LITERATURE_FILE: lab-library\.bib:6: malformed BibTeX/),
    ]);
    await expect(search.search({ collection: 'literature', query: 'sepsis' })).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/lab-library\.bib:6/),
    });
  });

  it('fails the proposal once with the file and line, not retried', async () => {
    const err = await h.run(researchProposalFlow, { mode: 'autonomous', profile: PROFILE, maxRefinements: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const chain: Array<{ message?: string; retryState?: unknown }> = [];
    for (let c = err as { cause?: unknown } | undefined; c; c = c.cause as typeof c) chain.push(c as never);
    // The activity failed once, for good: Temporal did not retry it.
    expect(chain.some((c) => c.retryState === RetryState.NON_RETRYABLE_FAILURE)).toBe(true);
    expect(chain.map((c) => c.message).join('\n')).toMatch(
      /LITERATURE_FILE: lab-library\.bib:6: malformed BibTeX \(column 1, in entry "broken" from line 2\)/,
    );
  }, 120_000);
});
