/**
 * Words for people where the data has keys: field names as labels, and the EADS library's
 * choice definitions ("variation-in-demand" → "Variation in demand: …") and the fixtures a
 * surrogate interview can play, read from the same folders the worker reads
 * (EADS_LIBRARY_DIRS, EADS_FIXTURES_DIR; the control plane runs from the same checkout). Both
 * reads are cheap and cached; a missing or broken folder only means plainer words.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../plumbing/project-root';
import {
  describeFields,
  EADS_ID_KEY,
  isPlainObject,
  stripAnnotations,
  type Choice,
  type Json,
  type JsonObject,
} from '../../domain/eads-structure';

/** "product-or-service-name", "maxPursuits", "continuous?" → "Product or service name", "Max pursuits", "Continuous". */
export function humanise(key: string): string {
  const words = key
    .replace(/\?$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_.]+/g, ' ')
    .trim()
    .toLowerCase();
  // Short all-capital keys stay as they are (SCR, BOM, PRP, ID).
  if (/^[A-Z0-9]{2,4}$/.test(key)) return key;
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : key;
}

const dirsOf = (value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(path.delimiter)
    .filter(Boolean)
    .map((d) => path.resolve(PROJECT_ROOT, d));

const jsonFiles = (dir: string): string[] => {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
};

interface Labels {
  names: Map<string, string>;
  choices: Map<string, Choice[]>;
}

/**
 * The library's names and choice definitions, read once per process: they are words for the
 * page, never rules (the worker validates the library; a file this cannot read is skipped).
 */
let labels: Labels | undefined;

function libraryLabels(): Labels {
  if (labels) return labels;
  const found: Labels = { names: new Map(), choices: new Map() };
  for (const file of dirsOf(process.env.EADS_LIBRARY_DIRS, 'data/eads').flatMap(jsonFiles)) {
    try {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; EADS?: unknown };
      if (!isPlainObject(doc.EADS)) continue;
      const { example, instructions } = stripAnnotations(doc.EADS as Json);
      const id = (example as JsonObject)[EADS_ID_KEY];
      if (typeof id === 'string' && typeof doc.name === 'string') found.names.set(id, doc.name);
      for (const field of describeFields(example as JsonObject, instructions))
        if (field.choices?.length && !found.choices.has(field.name)) found.choices.set(field.name, field.choices);
    } catch {
      // Not readable as an EADS: plainer words for its fields.
    }
  }
  labels = found;
  return found;
}

/** The choices the EADS library defines for a field (by field name), or none. */
export function fieldChoices(field: string): Choice[] {
  return libraryLabels().choices.get(field) ?? [];
}

/** An EADS's name in the library ("process/warm-up-with-challenges" → its `name`), else the id in words. */
export function eadsName(id: string): string {
  return libraryLabels().names.get(id) ?? humanise(id.split('/').pop() ?? id);
}

/** The surrogate firms the worker can play (fixture ids), when the control plane can see them. */
export function knownFixtures(): string[] {
  const ids = dirsOf(process.env.EADS_FIXTURES_DIR, 'data/eads-fixtures').flatMap((dir) => {
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5));
    } catch {
      return [];
    }
  });
  return [...new Set(ids)].sort();
}
