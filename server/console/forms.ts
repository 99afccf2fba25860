/**
 * Start forms generated from each flow's input JSON Schema (the same `z.toJSONSchema` output the
 * control plane publishes): strings, numbers, booleans and enums get their own controls; objects
 * and arrays are edited as JSON. The posted form is turned back into the flow's input object and
 * validated by the flow's zod schema, whose issues are shown beside their fields.
 */
import type { FlowDefinition } from '../../contracts/common';
import { jsonSchemaOf } from '../manifest';
import { html, type Html } from './html';

type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
};

export interface FormField {
  name: string;
  kind: 'text' | 'textarea' | 'number' | 'boolean' | 'enum' | 'json';
  required: boolean;
  description?: string;
  options?: string[];
  defaultValue?: unknown;
  min?: number;
  max?: number;
  integer?: boolean;
}

function kindOf(name: string, schema: JsonSchema): FormField['kind'] {
  if (schema.enum && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return (schema.maxLength ?? 0) > 500 || name === 'prp' ? 'textarea' : 'text';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  return 'json';
}

export function formFields(flow: FlowDefinition): FormField[] {
  const schema = jsonSchemaOf(flow.input, 'input') as JsonSchema;
  const required = new Set(schema.required ?? []);
  return (
    Object.entries(schema.properties ?? {})
      // Carried by continue-as-new only: not for people.
      .filter(([name]) => name !== 'resume')
      .map(([name, prop]) => ({
        name,
        kind: kindOf(name, prop),
        required: required.has(name) && prop.default === undefined,
        description: prop.description,
        options: prop.enum as string[] | undefined,
        defaultValue: prop.default,
        min: prop.minimum,
        max: prop.maximum,
        integer: prop.type === 'integer',
      }))
  );
}

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string>;

/** Turns posted strings into the input object; a field that cannot be read gets an error. */
export function inputFromForm(
  fields: FormField[],
  values: FormValues,
): { input: Record<string, unknown>; errors: FieldErrors } {
  const input: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    const raw = values[field.name] ?? '';
    if (field.kind === 'boolean') {
      if (raw === 'true' || raw === 'false') input[field.name] = raw === 'true';
      continue;
    }
    if (raw.trim() === '') continue;
    if (field.kind === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n)) errors[field.name] = 'must be a number';
      else input[field.name] = n;
    } else if (field.kind === 'json') {
      try {
        input[field.name] = JSON.parse(raw);
      } catch {
        errors[field.name] = 'must be JSON';
      }
    } else {
      input[field.name] = raw;
    }
  }
  return { input, errors };
}

const show = (v: unknown): string => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));

export function renderField(field: FormField, value: string | undefined, error: string | undefined): Html {
  const id = `f-${field.name}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ');
  const aria = html` aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}${field.required ? html` required` : ''}`;
  const current = value ?? '';
  let control: Html;
  switch (field.kind) {
    case 'textarea':
      control = html`<textarea id="${id}" name="${field.name}" rows="10" ${aria}>${current}</textarea>`;
      break;
    case 'json':
      control = html`<textarea id="${id}" name="${field.name}" rows="6" class="mono" placeholder="JSON" ${aria}>
${current}</textarea>`;
      break;
    case 'number':
      control = html`<input
        id="${id}"
        name="${field.name}"
        type="number"
        inputmode="decimal"
        value="${current}"
        placeholder="${show(field.defaultValue)}"
        ${field.min !== undefined ? html` min="${field.min}"` : ''}${field.max !== undefined ? html` max="${field.max}"` : ''}${field.integer ? html` step="1"` : html` step="any"`}${aria}
      />`;
      break;
    case 'boolean':
    case 'enum': {
      const options = field.kind === 'boolean' ? ['true', 'false'] : field.options!;
      const fallback = field.defaultValue !== undefined ? `default (${show(field.defaultValue)})` : '(not set)';
      control = html`<select id="${id}" name="${field.name}" ${aria}>
        ${field.required && field.defaultValue === undefined ? '' : html`<option value="">${fallback}</option>`}
        ${options.map((o) => html`<option value="${o}" ${current === o ? html` selected` : ''}>${field.kind === 'boolean' ? (o === 'true' ? 'yes' : 'no') : o}</option>`)}
      </select>`;
      break;
    }
    default:
      control = html`<input
        id="${id}"
        name="${field.name}"
        type="text"
        value="${current}"
        placeholder="${show(field.defaultValue)}"
        ${aria}
      />`;
  }
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">${field.name}${field.required ? html` <span class="req">(required)</span>` : ''}</label>
    ${field.description ? html`<p class="hint" id="${hintId}">${field.description}</p>` : ''} ${control}
    ${error ? html`<p class="error" id="${errorId}" role="alert">${error}</p>` : ''}
  </div>`;
}

export function renderStartForm(
  flow: FlowDefinition,
  values: FormValues = {},
  errors: FieldErrors = {},
  formError?: string,
): Html {
  const fields = formFields(flow);
  const example = flow.examples[0];
  return html`<p>${flow.description}</p>
    ${formError ? html`<p class="error" role="alert">${formError}</p>` : ''}
    <form method="post" action="/console/flows/${flow.type}" class="start">
      ${fields.map((f) => renderField(f, values[f.name], errors[f.name]))}
      <button type="submit">Start ${flow.title}</button>
    </form>
    ${
      example
        ? html`<details>
            <summary>Example input</summary>
            <pre>${JSON.stringify(example, null, 2)}</pre>
          </details>`
        : ''
    }`;
}
