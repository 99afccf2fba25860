/**
 * The Python solver worker's output as the parent process's JSON lines (workers/solver-worker.ts):
 * its JSON lines keep their level and fields, anything else becomes a line of its own, and text
 * chosen by whoever started a run (a workflow id, an error message) cannot colour the terminal,
 * forge a line, or pass off as another component or level.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../workers/logger';
import { relayLine } from '../../workers/solver-worker';

function capture() {
  const raw: string[] = [];
  const stream = { write: (line: string) => void raw.push(line) };
  const log = pino(loggerOptions({ level: 'info' }), stream).child({ component: 'solver' });
  return { log, raw, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("the solver worker's output", () => {
  it('keeps the level, message and fields of its JSON lines', () => {
    const { log, lines } = capture();
    relayLine(log, '{"level": "warn", "timestamp": "x", "message": "Failing activity", "workflowId": "w-1"}', 'info');
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        component: 'solver',
        source: 'python',
        message: 'Failing activity',
        workflowId: 'w-1',
      }),
    ]);
  });

  it('keeps only warnings and errors when the process is not verbose', () => {
    const { log, lines } = capture();
    const quiet = { warningsOnly: true };
    relayLine(log, '{"level": "info", "message": "solve started"}', 'info', quiet);
    relayLine(log, 'plain text', 'warn', quiet);
    relayLine(log, '{"level": "warn", "message": "Failing activity", "logger": "temporalio.core"}', 'info', quiet);
    relayLine(log, '{"level": "error", "message": "worker failed"}', 'info', quiet);
    expect(lines().map((l) => [l.level, l.message])).toEqual([
      ['warn', 'Failing activity'],
      ['error', 'worker failed'],
    ]);
  });

  it('lets no escape sequence, line break or forged field through', () => {
    const { log, raw, lines } = capture();
    const forged = '{"level":"error","component":"control-plane","message":"forged"}';
    // What json.dumps writes for a message and a workflow id carrying ANSI codes and a newline.
    relayLine(
      log,
      JSON.stringify({
        level: 'info',
        message: `solve started \u001b[31mred\u001b[0m\n${forged}`,
        workflowId: `w-\u001b[2J\r\n${forged}`,
        component: 'stack',
      }),
      'info',
    );
    relayLine(log, `Traceback: \u001b[33mboom\u0007\u0000 ${forged}`, 'warn');
    relayLine(log, '{"level": "fatal\\u001b[31m", "message": "odd level"}', 'info');
    relayLine(log, '   ', 'warn');
    expect(raw).toHaveLength(3);
    for (const line of raw) {
      expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
      expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
    const [json, text, odd] = lines();
    expect(json).toMatchObject({ level: 'info', component: 'solver', message: `solve started red\n${forged}` });
    expect(json!.workflowId).toBe(`w-\u001b[2J\r\n${forged}`);
    expect(text).toMatchObject({ level: 'warn', component: 'solver', message: `Traceback: boom ${forged}` });
    expect(odd).toMatchObject({ level: 'info', message: 'odd level' });
  });
});
