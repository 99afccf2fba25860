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

/**
 * Reads the tagged sections back; JSON bodies are parsed, other bodies stay strings.
 *
 * The same sections as `/<([a-zA-Z_][\w-]*)>\n([\s\S]*?)\n<\/\1>/g`, found in linear time: that
 * pattern retries its lazy body from every opening tag that has no closing one, so a prompt of
 * repeated `<a>\n` (a PRP, an answer) took the stand-in quadratic time (320 KB: 10 s with its
 * event loop blocked). Here every closing tag is listed once, and each opening tag takes the
 * first closing tag of its name after it.
 */
export function readSections(text: string): Record<string, unknown> {
  const sections: Record<string, unknown> = {};
  const closings = new Map<string, number[]>();
  for (const m of text.matchAll(/\n<\/([a-zA-Z_][\w-]*)>/g)) {
    const list = closings.get(m[1]) ?? [];
    list.push(m.index);
    closings.set(m[1], list);
  }
  // Per name, how many of its closing tags lie before the current position (openings come in order).
  const passed = new Map<string, number>();
  const opening = /<([a-zA-Z_][\w-]*)>\n/g;
  for (let m = opening.exec(text); m; m = opening.exec(text)) {
    const name = m[1];
    const start = m.index + m[0].length;
    const list = closings.get(name) ?? [];
    let i = passed.get(name) ?? 0;
    while (i < list.length && list[i] < start) i++;
    passed.set(name, i);
    if (i === list.length) continue; // no closing tag after it: not a section
    const body = text.slice(start, list[i]);
    opening.lastIndex = list[i] + name.length + 4; // past `\n</name>`
    try {
      sections[name] = JSON.parse(body);
    } catch {
      sections[name] = body;
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

/**
 * A reply cut at the token limit, read whole or not at all: the tolerant extraction would find a
 * complete fragment inside it (an inner array) and report that as the wrong type.
 */
export function parseWhole(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}
