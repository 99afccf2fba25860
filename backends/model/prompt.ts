/**
 * How the project writes prompts, shared by the model adapter and the offline stand-in.
 *
 * The system instruction starts with `Task: <id>` and the user turn carries the data as
 * tagged sections (`<question>…</question>`), a layout Gemini follows well. The stand-in
 * reads the same tags, so its answers come from the prompt's content, never from a lookup
 * of known inputs.
 */
export function renderSystem(task: string, instructions: string): string {
  return `Task: ${task}\n${instructions.trim()}`;
}

export function renderSections(sections: object): string {
  return Object.entries(sections as Record<string, unknown>)
    .filter(([, value]) => value !== undefined)
    .map(
      ([name, value]) => `<${name}>\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n</${name}>`,
    )
    .join('\n\n');
}

export function readTask(system: string): string | undefined {
  return /^Task: (\S+)/m.exec(system)?.[1];
}

/** Reads the tagged sections back; JSON bodies are parsed, other bodies stay strings. */
export function readSections(text: string): Record<string, unknown> {
  const sections: Record<string, unknown> = {};
  const re = /<([a-zA-Z_][\w-]*)>\n([\s\S]*?)\n<\/\1>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[2];
    try {
      sections[m[1]] = JSON.parse(body);
    } catch {
      sections[m[1]] = body;
    }
  }
  return sections;
}

/**
 * Tolerant JSON extraction, in this order: the reply as plain JSON, then a
 * fenced ```json block, then the outermost braces (or brackets). Returns undefined if none parse.
 */
export function extractJson(text: string): unknown {
  const attempts: string[] = [text.trim()];
  // The body is trimmed below: no `\s*` before it to trade characters with it.
  const fenced = /```(?:json)?([\s\S]*?)```/i.exec(text);
  if (fenced) attempts.push(fenced[1].trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start >= 0 && end > start) attempts.push(text.slice(start, end + 1));
  }
  for (const candidate of attempts) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next form
    }
  }
  return undefined;
}
