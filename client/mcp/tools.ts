/**
 * The MCP server's plug-in point. Every flow in `flows/registry.ts` gets its tool automatically
 * (tool name = `flow.mcpTool`); a flow that needs more tools than "run me" (e.g. the EADS
 * pursuit controls) exports a `ToolRegistrar` and is listed in `extraToolRegistrars` below.
 *
 * Registrars talk to Temporal only, through `ctx.client`, on `ctx.taskQueue`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Client } from '@temporalio/client';
import { registerEadsTools } from './eads-tools';

export interface McpContext {
  client: Client;
  /** `agent-flows` except in tests, which run their own worker on a queue of their own. */
  taskQueue: string;
}

export type ToolRegistrar = (server: McpServer, ctx: McpContext) => void;

/** Extra tools beyond one tool per flow. */
export const extraToolRegistrars: ToolRegistrar[] = [
  // get_next_eads, start_eads_pursuit, get_next_question, process_eads_answer, ... (the EADS interview tools)
  registerEadsTools,
];
