/** Waiting on a reply with a deadline, for clients that must answer a person in time. */

/**
 * A reply, or `pending` when none came within `ms`. An EADS answer's reply waits for the next
 * question, which a slow or failing model can hold up for minutes (and the pursuit takes the
 * answer in the same workflow task, so even its acceptance waits): the client then shows the run
 * as it stands (the console's page, the MCP tool's reply). The answer may still be taken; sent again, the same answer gets its reply, never a
 * second answer. A refusal that comes in time still throws; a late one has no one to tell.
 */
export async function replyWithin<T>(reply: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  reply.catch(() => undefined);
  try {
    return await Promise.race([
      reply,
      new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
