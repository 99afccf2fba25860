/**
 * The contract between the activities that prompt the model and the offline stand-in that
 * answers them. Each flow declares its tasks in its own `model-tasks.ts`: the task ids, and for
 * each task the names of the prompt's sections (the `<name>…</name>` blocks of the user turn, see
 * `backends/model/prompt.ts`), which it adds to `ModelTaskSections` below.
 *
 * Both sides are typed against that map. An activity that renames or adds a section, or a
 * stand-in rule that reads a section the task does not send, no longer compiles; before, the
 * stand-in silently read `undefined` and answered something else.
 *
 * Value types describe what the activities send. The stand-in receives the sections back from
 * text (JSON bodies parsed), so it sees every value as `unknown` and checks shapes itself.
 */

/**
 * The sections each task's prompt carries, by task id. Empty here: each flow's `model-tasks.ts`
 * adds its own tasks (`declare module` merges them into this interface), so the map is whatever
 * the flows declare and no list of flows is repeated here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModelTaskSections {}

/** Every task id a prompt carries (`Task: <id>` in the system instruction). */
export type ModelTaskId = keyof ModelTaskSections;

/** A JSON document rendered into the prompt as text (the stand-in parses it back). */
export type JsonText = string;

/**
 * A task's sections as the stand-in reads them back from the prompt's text: the same names, any
 * of them possibly missing, every value unchecked.
 */
export type ReceivedSections<T extends ModelTaskId> = { [K in keyof ModelTaskSections[T]]?: unknown };
