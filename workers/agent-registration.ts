/**
 * The worker's side of registration: register the manifest at start, re-assert it on every
 * heartbeat, deregister at shutdown. Best effort throughout: a worker runs the same whether or
 * not a control plane is up; when it is not, registration is retried until it succeeds.
 *
 * Each heartbeat sends the whole manifest again (the control plane records an unchanged one as
 * a heartbeat), so a registration someone else replaced, or a control plane that lost its store,
 * is put right within one interval. A random per-process secret (`x-agent-secret`) binds the
 * agent to this instance: nobody without it or a token can move the agent to another task
 * queue or namespace, or remove it.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AgentRegistrationInput } from '../contracts/capabilities';
import { logger } from '../plumbing/logger';

export interface AgentRegistrationOptions {
  /** Control-plane base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  token?: string;
  manifest: AgentRegistrationInput;
  heartbeatMs?: number;
  /** Per-call timeout. */
  timeoutMs?: number;
  /** Where its lines go (default: the worker's JSON logger): a message and the values it is about. */
  log?: (message: string, fields?: Record<string, unknown>, level?: 'info' | 'warn') => void;
}

export interface AgentRegistrationHandle {
  readonly instanceId: string;
  /** Resolves once the first registration attempt finished (successful or not). */
  readonly firstAttempt: Promise<boolean>;
  isRegistered(): boolean;
  /** Stops heartbeats and deregisters this instance. Never throws. */
  stop(): Promise<void>;
}

export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}`;
}

export function startAgentRegistration(options: AgentRegistrationOptions): AgentRegistrationHandle {
  const base = options.url.replace(/\/+$/, '');
  const instanceId = options.manifest.instance_id ?? defaultInstanceId();
  const manifest = { ...options.manifest, instance_id: instanceId };
  const agentPath = `${base}/api/v1/agents/${encodeURIComponent(manifest.agent_id)}`;
  const log =
    options.log ??
    ((message: string, fields: Record<string, unknown> = {}, level: 'info' | 'warn' = 'info') =>
      logger('worker')[level](fields, message));
  const timeoutMs = options.timeoutMs ?? 3000;
  const auth: Record<string, string> = {
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    'x-agent-secret': randomBytes(32).toString('base64url'),
  };
  let registered = false;
  let warned = false;
  let stopped = false;

  const call = (url: string, init: RequestInit) =>
    fetch(url, {
      ...init,
      headers: init.body ? { ...auth, 'content-type': 'application/json' } : auth,
      signal: AbortSignal.timeout(timeoutMs),
    });

  const register = async (): Promise<boolean> => {
    try {
      const res = await call(`${base}/api/v1/agents`, { method: 'POST', body: JSON.stringify(manifest) });
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      if (!registered) {
        log('registered agent with the control plane', {
          agentId: manifest.agent_id,
          reasoners: manifest.reasoners?.length ?? 0,
          skills: manifest.skills?.length ?? 0,
          url: base,
        });
      }
      registered = true;
      warned = false;
      return true;
    } catch (err) {
      registered = false;
      if (!warned) {
        log(
          'control plane refused or not reachable; running unregistered, retrying',
          {
            url: base,
            error: (err as Error).message,
          },
          'warn',
        );
      }
      warned = true;
      return false;
    }
  };

  // Control plane away: keep trying; it shows this agent as inactive meanwhile.
  let inFlight: Promise<boolean> | undefined;
  const heartbeat = async () => {
    if (stopped || inFlight) return;
    inFlight = register().finally(() => (inFlight = undefined));
    await inFlight;
  };

  const firstAttempt = register();
  const timer = setInterval(() => void heartbeat(), options.heartbeatMs ?? 10_000);
  timer.unref();

  return {
    instanceId,
    firstAttempt,
    isRegistered: () => registered,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await firstAttempt;
      // A registration still under way would otherwise land after the deregistration.
      await inFlight;
      if (!registered) return;
      try {
        await call(`${agentPath}?instance_id=${encodeURIComponent(instanceId)}`, { method: 'DELETE' });
        log('deregistered agent', { agentId: manifest.agent_id, instanceId });
      } catch (err) {
        log('could not deregister from the control plane', { url: base, error: (err as Error).message }, 'warn');
      }
    },
  };
}

/**
 * What the worker calls at start when CONTROL_PLANE_URL is set: registers this worker group
 * (agent CONTROL_PLANE_AGENT_ID) with the flows and the activities it actually registered.
 */
export async function startWorkerRegistration(
  config: {
    CONTROL_PLANE_URL?: string;
    CONTROL_PLANE_TOKEN?: string;
    CONTROL_PLANE_REGISTRATION_TOKEN?: string;
    CONTROL_PLANE_AGENT_ID: string;
    CONTROL_PLANE_HEARTBEAT_MS: number;
  },
  worker: { activityNames: string[]; namespace: string; taskQueue: string; address: string },
): Promise<AgentRegistrationHandle | undefined> {
  if (!config.CONTROL_PLANE_URL) return undefined;
  const { buildLocalManifest } = await import('../server/manifest');
  const manifest = buildLocalManifest({
    agentId: config.CONTROL_PLANE_AGENT_ID,
    taskQueue: worker.taskQueue,
    namespace: worker.namespace,
    address: worker.address,
    activityNames: worker.activityNames,
  });
  return startAgentRegistration({
    url: config.CONTROL_PLANE_URL,
    token: config.CONTROL_PLANE_REGISTRATION_TOKEN ?? config.CONTROL_PLANE_TOKEN,
    manifest,
    heartbeatMs: config.CONTROL_PLANE_HEARTBEAT_MS,
  });
}
