/**
 * Reads a researcher's own library (BibTeX / BibLaTeX, or CSL-JSON as Zotero, Mendeley and
 * Citation.js export it) into literature documents of the same shape as the bundled corpus
 * (`data/search/literature.json`): id, title, authors, year, venue, url, abstract, keywords.
 *
 * Parsing is Citation.js (`@citation-js/plugin-bibtex` for BibTeX, its CSL model for both formats),
 * not hand-written: BibTeX's braces, string macros, TeX accents and name lists are easy to get
 * wrong. It parses ~1 ms an entry, synchronously; its CSL output plugin (citeproc) is left out:
 * formatting a reference line took 15-28 ms an entry, which would block the worker for most of a
 * minute on a 2,000-entry library.
 *
 * Only entries a reader can open are kept: a DOI (linked as https://doi.org/...) or an http(s)
 * URL. An entry with neither is left out of the index, so no proposal can ever cite it.
 * Everything in the file is data: sizes are capped and the text never reaches SQL or a shell.
 */
import { Cite, type CSL, type CSLName } from '@citation-js/core';
import '@citation-js/plugin-bibtex';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** Caps on what one library may bring in: a large personal library is a few thousand entries. */
export const BIBLIOGRAPHY_LIMITS = {
  // ~1-2 KB an entry with its abstract: a few thousand entries, parsed in a couple of seconds.
  fileBytes: 4 * 1024 * 1024,
  entries: 5000,
  title: 400,
  authors: 300,
  venue: 200,
  abstract: 3000,
  keywords: 20,
  keyword: 80,
  url: 2000,
} as const;

/** A library file that cannot be read as a bibliography: names the file and, when known, the line. */
export class BibliographyError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${detail}`);
    this.name = 'BibliographyError';
  }
}

export interface LiteratureDocument {
  [key: string]: unknown;
  id: string;
  title: string;
  authors?: string;
  year?: number;
  venue?: string;
  url: string;
  abstract?: string;
  keywords?: string[];
  /** The citation key in the researcher's own file. */
  citation_key: string;
}

export interface Bibliography {
  documents: LiteratureDocument[];
  /** Citation keys of entries left out because they have neither a DOI nor an http(s) URL. */
  withoutLink: string[];
}

/** Printable text on one line, at most `max` characters. */
function clean(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const DOI = /^10\.\d{4,9}\/\S+$/;

/** `10.1000/xyz`, `doi:10.1000/xyz` or a doi.org link → https://doi.org/10.1000/xyz (each part escaped). */
export function doiUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const doi = value
    .trim()
    .replace(/^doi:\s*/i, '')
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '');
  if (!DOI.test(doi)) return undefined;
  return `https://doi.org/${doi.split('/').map(encodeURIComponent).join('/')}`;
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > BIBLIOGRAPHY_LIMITS.url) return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function nameText(n: CSLName): string {
  if (n.literal) return n.literal;
  const initials = (n.given ?? '')
    .split(/[\s.-]+/)
    .filter(Boolean)
    .map((g) => `${g[0]}.`)
    .join(' ');
  return [n['non-dropping-particle'], n.family].filter(Boolean).join(' ') + (initials ? `, ${initials}` : '');
}

/** "Smith, J. and Doe, J.", or "Smith, J. et al." for more than three authors (as the bundled corpus writes them). */
function authorsText(names: CSLName[] | undefined): string | undefined {
  if (!names?.length) return undefined;
  const text = names.length > 3 ? `${nameText(names[0])} et al.` : names.map(nameText).join(' and ');
  return clean(text, BIBLIOGRAPHY_LIMITS.authors);
}

function keywordsOf(value: unknown): string[] | undefined {
  const raw = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '';
  const words = raw
    .split(/[,;]/)
    .map((k) => clean(k, BIBLIOGRAPHY_LIMITS.keyword))
    .filter((k): k is string => !!k);
  return words.length ? [...new Set(words)].slice(0, BIBLIOGRAPHY_LIMITS.keywords) : undefined;
}

/** Citation.js's input options (it fills in the ones left out). */
const inputOptions = (options: Record<string, unknown>) => options as unknown as ConstructorParameters<typeof Cite>[1];

/** Line of a character offset (1-based). */
const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** The last entry that starts at or before `line`: its citation key and first line. */
function entryBefore(text: string, line: number): { key: string; line: number } | undefined {
  const lines = text.split('\n').slice(0, line);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^\s*@(\w+)\s*[{(]\s*([^,\s}]*)/.exec(lines[i]);
    if (m && !/^(string|preamble|comment)$/i.test(m[1])) return { key: m[2], line: i + 1 };
  }
  return undefined;
}

function parseBibtex(file: string, text: string): CSL[] {
  try {
    return new Cite(text, inputOptions({ forceType: '@biblatex/text', generateGraph: false })).data;
  } catch (err) {
    // Citation.js says where it stopped: 'expected "rbrace", got EOF at line 8 col 1:' then an excerpt.
    const message = err instanceof Error ? err.message : String(err);
    const first = message.split('\n')[0];
    const at = /at line (\d+) col (\d+)/.exec(first);
    const detail = first.replace(/\s*at line \d+ col \d+:?\s*$/, '').slice(0, 200);
    const line = at ? Number(at[1]) : undefined;
    // The parser often notices a missing brace only at the end of the file: name the entry it was in.
    const entry = line === undefined ? undefined : entryBefore(text, line);
    const where = [
      at ? `column ${at[2]}` : '',
      entry ? `in entry ${JSON.stringify(entry.key.slice(0, 60))} from line ${entry.line}` : '',
    ].filter(Boolean);
    throw new BibliographyError(
      file,
      line,
      `malformed BibTeX${where.length ? ` (${where.join(', ')})` : ''}: ${detail}`,
    );
  }
}

function parseCslJson(file: string, text: string): CSL[] {
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message);
    throw new BibliographyError(
      file,
      position ? lineAt(text, Number(position[1])) : undefined,
      `malformed CSL-JSON: ${message.split('\n')[0].slice(0, 200)}`,
    );
  }
  if (!Array.isArray(items) || items.some((i) => !i || typeof i !== 'object' || Array.isArray(i)))
    throw new BibliographyError(file, undefined, 'CSL-JSON must be an array of entry objects');
  try {
    return new Cite(items, inputOptions({ forceType: '@csl/list+object', generateGraph: false })).data;
  } catch (err) {
    throw new BibliographyError(
      file,
      undefined,
      `unreadable CSL-JSON: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`,
    );
  }
}

/** Parses BibTeX / BibLaTeX (`.bib`, `.bibtex`) or CSL-JSON (`.json`) text into literature documents. */
export function parseBibliography(file: string, text: string): Bibliography {
  const name = path.basename(file);
  const isJson = /\.json$/i.test(file) || /^\s*\[/.test(text);
  const entries = (isJson ? parseCslJson(name, text) : parseBibtex(name, text)).slice(0, BIBLIOGRAPHY_LIMITS.entries);
  if (entries.length === 0)
    throw new BibliographyError(name, undefined, `no ${isJson ? 'CSL-JSON' : 'BibTeX'} entries found`);
  const documents: LiteratureDocument[] = [];
  const withoutLink: string[] = [];
  const ids = new Set<string>();
  for (const entry of entries) {
    const key = clean(entry['citation-key'] ?? entry.id, 120) ?? `entry-${documents.length + 1}`;
    const url = doiUrl(entry.DOI) ?? httpUrl(entry.URL);
    const title = clean(entry.title, BIBLIOGRAPHY_LIMITS.title);
    if (!url || !title) {
      withoutLink.push(key);
      continue;
    }
    // Ids of the researcher's own entries never collide with the bundled corpus's (`lit-...`).
    let id = `own-${key.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 100)}`;
    for (let n = 2; ids.has(id); n++) id = `own-${key.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 100)}-${n}`;
    ids.add(id);
    const year = Number(entry.issued?.['date-parts']?.[0]?.[0]);
    const doc: LiteratureDocument = { id, title, url, citation_key: key };
    const authors = authorsText(entry.author ?? entry.editor);
    if (authors) doc.authors = authors;
    if (Number.isInteger(year) && year > 0 && year < 3000) doc.year = year;
    const venue = clean(entry['container-title'] ?? entry.publisher, BIBLIOGRAPHY_LIMITS.venue);
    if (venue) doc.venue = venue;
    const abstract = clean(entry.abstract, BIBLIOGRAPHY_LIMITS.abstract);
    if (abstract) doc.abstract = abstract;
    const keywords = keywordsOf(entry.keyword);
    if (keywords) doc.keywords = keywords;
    documents.push(doc);
  }
  return { documents, withoutLink };
}

/** Reads a library file (size-capped) and parses it; errors name the file and the line. */
export async function readBibliography(file: string): Promise<Bibliography> {
  const name = path.basename(file);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new BibliographyError(name, undefined, 'no such file');
  if (info.size > BIBLIOGRAPHY_LIMITS.fileBytes)
    throw new BibliographyError(name, undefined, `larger than ${BIBLIOGRAPHY_LIMITS.fileBytes / 1024 / 1024} MB`);
  return parseBibliography(file, await readFile(file, 'utf8'));
}
