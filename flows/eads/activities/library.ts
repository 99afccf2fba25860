/**
 * Loads EADS files (upstream's annotated format, plus this project's `name`, `prerequisites`
 * and `applies-when`) and surrogate-expert fixtures from disk. Only activities call this: the
 * workflows receive what they need through activity results.
 *
 * A broken file is rejected with an EadsLibraryError naming the file and the failing field.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { formatZodError, zodIssues } from '../../../contracts/common';
import {
  DEFAULT_BUDGET_DECREMENT,
  eadsFileSchema,
  fixtureIdSchema,
  type EadsCatalogEntry,
  type LoadedEads,
  type PursuitPlan,
} from '../contract';
import { describeFields, stripAnnotations, topicOf, type Json, type JsonObject } from '../../../domain/eads-structure';

export class EadsLibraryError extends Error {
  constructor(
    readonly file: string,
    /** The failing field, e.g. `EADS.duration.comment` or `prerequisites.0`; `(file)` for unreadable files. */
    readonly field: string,
    message: string,
  ) {
    super(message.startsWith(`${field}:`) ? `${file}: ${message}` : `${file}: ${field}: ${message}`);
    this.name = 'EadsLibraryError';
  }
}

const humanize = (id: string) => {
  const name = id.split('/').pop() ?? id;
  return name.charAt(0).toUpperCase() + name.slice(1).replace(/-+/g, ' ');
};

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EadsLibraryError(file, '(file)', `cannot read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EadsLibraryError(file, '(file)', `not valid JSON: ${(err as Error).message}`);
  }
}

function firstIssue(error: z.ZodError): { field: string; message: string } {
  return { field: zodIssues(error, '(root)')[0]?.field ?? '(root)', message: formatZodError(error) };
}

/** Validates one EADS file and strips its annotations into the example structure and the instructions. */
export function loadEadsFile(file: string): LoadedEads {
  const parsed = eadsFileSchema.safeParse(readJson(file));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error);
    throw new EadsLibraryError(file, field, message);
  }
  const data = parsed.data;
  const { example, instructions } = stripAnnotations(data.EADS as Json);
  const exampleObject = example as JsonObject;
  const id = String(exampleObject['EADS-id']);
  const topic = topicOf(id);
  return {
    id,
    name: data.name ?? humanize(id),
    file,
    topic,
    interviewer: data['interviewer-agent'] ?? topic,
    objective: data['interview-objective'].trim(),
    budgetDecrement: data['budget-decrement'] ?? DEFAULT_BUDGET_DECREMENT,
    prerequisites: data.prerequisites ?? [],
    appliesWhen: data['applies-when'],
    example: exampleObject,
    instructions,
    fields: describeFields(exampleObject, instructions),
  };
}

function jsonFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (err) {
    throw new EadsLibraryError(dir, '(directory)', `cannot read the EADS directory: ${(err as Error).message}`);
  }
  return entries.sort().flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return jsonFiles(full);
    return name.endsWith('.json') ? [full] : [];
  });
}

export interface EadsLibrary {
  eads: LoadedEads[];
  get(id: string): LoadedEads | undefined;
}

/**
 * Loads every `*.json` under the directories (recursively, in name order), then checks the
 * library as a whole: unique ids, known prerequisites, `applies-when` pointing at a real field,
 * and no prerequisite cycles.
 */
export function loadEadsLibrary(dirs: string[]): EadsLibrary {
  const eads: LoadedEads[] = [];
  for (const dir of dirs) {
    for (const file of jsonFiles(dir)) {
      const loaded = loadEadsFile(file);
      const twin = eads.find((e) => e.id === loaded.id);
      if (twin)
        throw new EadsLibraryError(file, 'EADS.EADS-id', `duplicate EADS-id "${loaded.id}" (also in ${twin.file})`);
      eads.push(loaded);
    }
  }
  const byId = new Map(eads.map((e) => [e.id, e]));
  for (const e of eads) {
    e.prerequisites.forEach((p, i) => {
      if (!byId.has(p)) throw new EadsLibraryError(e.file, `prerequisites.${i}`, `unknown EADS "${p}"`);
    });
    if (e.appliesWhen) {
      const target = byId.get(e.appliesWhen.eads);
      if (!target) throw new EadsLibraryError(e.file, 'applies-when.eads', `unknown EADS "${e.appliesWhen.eads}"`);
      if (!(e.appliesWhen.field in target.example)) {
        throw new EadsLibraryError(
          e.file,
          'applies-when.field',
          `"${e.appliesWhen.field}" is not a field of ${target.id}`,
        );
      }
    }
  }
  // Prerequisite cycles would leave EADS that can never be pursued.
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, trail: string[]) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const e = byId.get(id)!;
      throw new EadsLibraryError(e.file, 'prerequisites', `prerequisite cycle: ${[...trail, id].join(' → ')}`);
    }
    state.set(id, 'visiting');
    for (const p of byId.get(id)!.prerequisites) visit(p, [...trail, id]);
    state.set(id, 'done');
  };
  for (const e of eads) visit(e.id, []);
  return { eads, get: (id) => byId.get(id) };
}

/** Re-reads the library only when a file was added, removed or changed (cheap `stat`s per call). */
export function cachedLibrary(dirs: string[]): () => EadsLibrary {
  let signature = '';
  let library: EadsLibrary | undefined;
  return () => {
    const current = dirs
      .flatMap((d) => jsonFiles(d))
      .map((f) => {
        const s = statSync(f);
        return `${f}:${s.mtimeMs}:${s.size}`;
      })
      .join('|');
    if (!library || current !== signature) {
      library = loadEadsLibrary(dirs);
      signature = current;
    }
    return library;
  };
}

export function firstSentence(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  const s = m ? m[1] : flat;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function catalogEntry(e: LoadedEads): EadsCatalogEntry {
  return {
    id: e.id,
    name: e.name,
    interviewer: e.interviewer,
    objective: firstSentence(e.objective),
    prerequisites: e.prerequisites,
    ...(e.appliesWhen ? { appliesWhen: e.appliesWhen } : {}),
    budgetDecrement: e.budgetDecrement,
    fields: e.fields.map((f) => f.name),
  };
}

export function pursuitPlan(e: LoadedEads): PursuitPlan {
  return {
    id: e.id,
    name: e.name,
    interviewer: e.interviewer,
    objective: e.objective,
    budgetDecrement: e.budgetDecrement,
    fields: e.fields,
    instructions: e.instructions,
    example: e.example,
  };
}

// ---------------------------------------------------------------------------------------------
// Surrogate-expert fixtures: a fictional firm's facts, in the owner's words.

export const fixtureSchema = z
  .object({
    'fixture-id': fixtureIdSchema,
    firm: z.string().min(1),
    interviewee: z.string().min(1),
    about: z.string().min(1),
    facts: z.array(z.object({ about: z.string().min(1), answer: z.string().min(1) }).strict()).min(1),
    tables: z
      .array(z.object({ name: z.string().min(1), rows: z.array(z.record(z.string(), z.unknown())).min(1) }).strict())
      .default([]),
    /** What a correct interview should find: read by tests only, never sent to the model. */
    expected: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type Fixture = z.infer<typeof fixtureSchema>;

/**
 * Reads a fixture by id from the first directory that holds it (`dir` may be a list: the bundled
 * firms, then e.g. the evaluation's held-out firms, which live apart from them).
 */
export function loadFixture(dir: string | string[], fixtureId: string): Fixture {
  const dirs = Array.isArray(dir) ? dir : [dir];
  const id = fixtureIdSchema.safeParse(fixtureId);
  if (!id.success)
    throw new EadsLibraryError(fixtureId, 'fixture', id.error.issues[0]?.message ?? 'invalid fixture id');
  const file = dirs.map((d) => path.join(d, `${fixtureId}.json`)).find((f) => existsSync(f));
  if (!file) {
    const known = [...new Set(dirs.flatMap(listFixtures))].sort();
    throw new EadsLibraryError(
      path.join(dirs[0] ?? '.', `${fixtureId}.json`),
      'fixture',
      `unknown fixture "${fixtureId}" (known: ${known.join(', ') || 'none'})`,
    );
  }
  const parsed = fixtureSchema.safeParse(readJson(file));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error);
    throw new EadsLibraryError(file, field, message);
  }
  if (parsed.data['fixture-id'] !== fixtureId)
    throw new EadsLibraryError(file, 'fixture-id', `"${parsed.data['fixture-id']}" does not match the file name`);
  return parsed.data;
}

export function listFixtures(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
  } catch {
    return [];
  }
}
