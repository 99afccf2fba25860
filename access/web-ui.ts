/**
 * Links into the Temporal Web UI, from the validated configuration (TEMPORAL_UI_URL or
 * TEMPORAL_UI_PORT). No Temporal client library here: the control plane's console renders links
 * without loading it.
 */
import { parseConfig, type Config } from '../plumbing/config';

export function webUiBase(): string {
  // Read through the validated configuration; a process that has not validated it yet gets the default.
  let settings: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_UI_PORT'> = {
    TEMPORAL_UI_URL: undefined,
    TEMPORAL_UI_PORT: 8233,
  };
  try {
    settings = parseConfig(process.env);
  } catch {
    // invalid settings are reported by the entry point (exit 2); a link is not worth failing for
  }
  return (settings.TEMPORAL_UI_URL ?? `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}`).replace(/\/$/, '');
}

/**
 * A Web UI page for a workflow: its run's history when the run id is known, else the workflow's
 * page, which opens its latest run. (The UI reads `<id>/history` as run id "history": 400.)
 */
export function webUiLink(namespace: string, workflowId: string, runId?: string): string {
  const workflow = `${webUiBase()}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${workflow}/${encodeURIComponent(runId)}/history` : workflow;
}
