/**
 * Container health checks: `node dist/workers/healthcheck.js <component>` exits 0 when the
 * component in this container answers, 1 otherwise (Docker HEALTHCHECK, compose, Kubernetes exec
 * probes). Reads the same variables as the component, so a changed port needs no second setting.
 *
 *   worker         its Prometheus endpoint lists pollers on the task queue (it is polling)
 *   control-plane  GET /healthz      standin  GET /healthz      mcp  GET /healthz
 *   codec          POST /decode with no payloads
 */
import { TASK_QUEUE } from '../contracts/common';
import { parseConfig } from '../plumbing/config';

const local = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);

export async function checkHealth(
  component: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const config = parseConfig(env);
  const get = async (url: string, init?: RequestInit): Promise<string> => {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(4000) });
    const body = await res.text();
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    return body;
  };
  switch (component) {
    case 'worker': {
      const metrics = await get(`http://${local(config.WORKER_METRICS_HOST)}:${config.WORKER_METRICS_PORT}/metrics`);
      const queue = TASK_QUEUE;
      const polling = metrics
        .split('\n')
        .some((line) => line.startsWith('temporal_num_pollers') && line.includes(`task_queue="${queue}"`));
      if (!polling) throw new Error(`no pollers on task queue ${queue} yet`);
      return `worker polling ${queue}`;
    }
    case 'control-plane':
      await get(`http://${local(config.CONTROL_PLANE_HOST)}:${config.CONTROL_PLANE_PORT}/healthz`);
      return 'control plane up';
    case 'standin':
      await get(`http://${local(config.STANDIN_HOST)}:${config.STANDIN_PORT}/healthz`);
      return 'stand-in up';
    case 'mcp':
      await get(`http://${local(env.MCP_HOST ?? '127.0.0.1')}:${env.MCP_PORT ?? '8787'}/healthz`);
      return 'MCP HTTP up';
    case 'codec':
      await get(`http://${local(config.CODEC_HOST)}:${config.CODEC_PORT}/decode`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(config.CODEC_AUTH_TOKEN ? { authorization: `Bearer ${config.CODEC_AUTH_TOKEN}` } : {}),
        },
        body: JSON.stringify({ payloads: [] }),
      });
      return 'codec endpoint up';
    default:
      throw new Error(`unknown component "${component}" (worker, control-plane, standin, mcp, codec)`);
  }
}

if (require.main === module) {
  checkHealth(process.argv[2] ?? '').then(
    (status) => {
      console.log(status);
      process.exit(0);
    },
    (err) => {
      console.error(`unhealthy: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
