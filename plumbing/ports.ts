/**
 * A port clash names who wanted the port and what moves it, instead of a bare `EADDRINUSE`:
 * the stack starts up to six listeners (dev server and its Web UI, stand-in, control plane,
 * worker metrics, codec endpoint) and MCP HTTP adds one more.
 */

/** True for "address already in use" from Node (`EADDRINUSE`) or from the SDK's Rust core. */
export function isAddressInUse(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return (err as NodeJS.ErrnoException).code === 'EADDRINUSE' || /EADDRINUSE|address already in use/i.test(err.message);
}

export function portInUseMessage(component: string, address: string, setting: string): string {
  return (
    `${component} cannot listen on ${address}: the port is already in use (EADDRINUSE). ` +
    `Stop what holds it, or set ${setting} to another port.`
  );
}

/** The error to report: a named one for a port clash, the original otherwise. */
export function explainListenError(err: unknown, component: string, address: string, setting: string): unknown {
  return isAddressInUse(err) ? new Error(portInUseMessage(component, address, setting), { cause: err }) : err;
}

/** Runs a start function; a port clash is rethrown naming the component, address and setting. */
export async function listening<T>(
  component: string,
  address: string,
  setting: string,
  start: () => T | Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    throw explainListenError(err, component, address, setting);
  }
}
