/**
 * Builds the manifest our worker registers: its reasoners are the flows in flows/registry.ts
 * (input/output JSON Schemas generated with `z.toJSONSchema` from the same zod schemas the
 * workflows validate with, the flows' examples), its skills the activities it actually
 * registered (names given at run time, so flows added later appear without changes here).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  CAPABILITY_ID_PATTERN,
  TAG_PATTERN,
  type AgentRegistrationInput,
  type CapabilityExample,
} from '../contracts/capabilities';
import type { FlowDefinition } from '../contracts/common';
import { flows as registeredFlows } from '../flows/registry';
import { skillMetadata as defaultSkillMetadata, type SkillMetadata } from './skill-metadata';
import { PROJECT_ROOT } from '../plumbing/project-root';

/** JSON Schema for a zod schema; `{}` (anything) when a schema cannot be expressed. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    return rest;
  } catch {
    return {};
  }
}

const validTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()).filter((t) => TAG_PATTERN.test(t)))];

/** `searchPlatformDocs` -> `Search platform docs.` */
export function describeName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? `${words[0].toUpperCase()}${words.slice(1)}.` : name;
}

function flowExamples(flow: FlowDefinition): CapabilityExample[] {
  return flow.examples.slice(0, 20).map((input, i) => {
    let description: string | undefined;
    try {
      description = flow.summary(flow.input.parse(input) as never);
    } catch {
      description = undefined;
    }
    return {
      name: `${flow.title} example ${i + 1}`.slice(0, 200),
      ...(description ? { description: description.slice(0, 2000) } : {}),
      input,
    };
  });
}

export interface LocalManifestOptions {
  agentId: string;
  taskQueue: string;
  namespace: string;
  /** Temporal frontend host:port, shown in base_url. */
  address: string;
  activityNames: string[];
  instanceId?: string;
  flows?: FlowDefinition[];
  skillMetadata?: Record<string, SkillMetadata>;
}

export function buildLocalManifest(o: LocalManifestOptions): AgentRegistrationInput {
  const metadata = o.skillMetadata ?? defaultSkillMetadata;
  const reasoners = (o.flows ?? registeredFlows)
    .filter((f) => CAPABILITY_ID_PATTERN.test(f.type))
    .map((flow) => ({
      id: flow.type,
      description: flow.description.slice(0, 4000),
      tags: validTags(flow.tags).slice(0, 50),
      input_schema: jsonSchemaOf(flow.input, 'input'),
      output_schema: jsonSchemaOf(flow.output, 'output'),
      examples: flowExamples(flow),
    }));
  const skills = [...new Set(o.activityNames)]
    .filter((name) => CAPABILITY_ID_PATTERN.test(name))
    .sort()
    .map((name) => {
      const meta = metadata[name];
      return {
        id: name,
        description: meta?.description ?? describeName(name),
        tags: validTags([...(meta?.tags ?? []), 'activity']).slice(0, 50),
        ...(meta?.args
          ? { input_schema: jsonSchemaOf(z.tuple(meta.args as [z.ZodType, ...z.ZodType[]]), 'input') }
          : {}),
        ...(meta?.output ? { output_schema: jsonSchemaOf(meta.output, 'output') } : {}),
        examples: [],
      };
    });
  const digest = createHash('sha256').update(JSON.stringify({ reasoners, skills })).digest('hex').slice(0, 8);
  return {
    agent_id: o.agentId,
    base_url: `temporal://${o.address}/${encodeURIComponent(o.namespace)}/${encodeURIComponent(o.taskQueue)}`,
    // The build metadata changes whenever a flow or activity is added or changed.
    version: `${packageVersion()}+${digest}`,
    deployment_type: 'long_running',
    task_queue: o.taskQueue,
    namespace: o.namespace,
    ...(o.instanceId ? { instance_id: o.instanceId } : {}),
    reasoners,
    skills,
  };
}

let cachedVersion: string | undefined;
function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  try {
    cachedVersion = String(
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).version ?? '0.0.0',
    );
  } catch {
    cachedVersion = '0.0.0';
  }
  return cachedVersion;
}
