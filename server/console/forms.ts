/**
 * Start forms generated from each flow's input JSON Schema (the same `z.toJSONSchema` output the
 * control plane publishes): labelled in words (the schema's description as the hint), strings,
 * numbers, booleans and enums get their own controls, an object of such fields (or "true, or
 * these options", like the EADS interview's `schedule`) gets a small form of its own, and only
 * lists of records are edited as JSON. A field whose values the control plane can list (the EADS
 * fixtures) is a choice. The posted form is turned back into the flow's input object and
 * validated by the flow's zod schema, whose issues are shown beside their fields.
 */
import type { FlowDefinition } from '../../contracts/common';
import { jsonSchemaOf } from '../manifest';
import { html, type Html } from './html';
import { humanise, knownFixtures } from './words';

type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  anyOf?: JsonSchema[];
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
  /** The posted name: `schedule.dueDates` for a field of the `schedule` group. */
  name: string;
  /** What the label says. */
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'boolean' | 'enum' | 'json' | 'group';
  required: boolean;
  description?: string;
  options?: string[];
  defaultValue?: unknown;
  min?: number;
  max?: number;
  integer?: boolean;
  /** A group's fields. */
  fields?: FormField[];
  /** A group that may also be just `true` ("yes, with the defaults"): it gets a yes/no choice first. */
  orTrue?: boolean;
}

/** Values the control plane can list for a field that the schema only constrains by pattern. */
const LISTED_VALUES: Record<string, () => string[]> = {
  'runEadsInterview.fixture': knownFixtures,
};

/** An object whose fields each get a control of their own (lists of records stay JSON). */
const objectBranch = (schema: JsonSchema): JsonSchema | undefined => {
  if (schema.properties) return schema;
  const branches = schema.anyOf ?? [];
  return branches.length === 2 && branches.some((b) => b.type === 'boolean')
    ? branches.find((b) => b.type === 'object' && b.properties)
    : undefined;
};

function kindOf(name: string, schema: JsonSchema): FormField['kind'] {
  if (schema.enum && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return (schema.maxLength ?? 0) > 500 || name === 'prp' ? 'textarea' : 'text';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  return 'json';
}

function fieldsOf(schema: JsonSchema, prefix: string, listed: (name: string) => string[] | undefined): FormField[] {
  const required = new Set(schema.required ?? []);
  return (
    Object.entries(schema.properties ?? {})
      // Carried by continue-as-new only: not for people.
      .filter(([name]) => name !== 'resume')
      .map(([key, prop]): FormField => {
        const name = prefix + key;
        const group = prefix ? undefined : objectBranch(prop);
        const values = listed(name);
        const field: FormField = {
          name,
          label: humanise(key),
          kind: group ? 'group' : values?.length ? 'enum' : kindOf(key, prop),
          required: required.has(key) && prop.default === undefined,
          description: prop.description,
          options: values?.length ? values : (prop.enum as string[] | undefined),
          defaultValue: prop.default,
          min: prop.minimum,
          max: prop.maximum,
          integer: prop.type === 'integer',
        };
        if (group) {
          field.fields = fieldsOf(group, `${name}.`, () => undefined);
          field.orTrue = group !== prop;
        }
        return field;
      })
  );
}

export function formFields(flow: FlowDefinition): FormField[] {
  const schema = jsonSchemaOf(flow.input, 'input') as JsonSchema;
  return fieldsOf(schema, '', (name) => LISTED_VALUES[`${flow.type}.${name}`]?.());
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
    if (field.kind === 'group') {
      const choice = values[field.name] ?? '';
      // "No" leaves the field out whatever its options say; "yes" with no option is `true`.
      if (field.orTrue && choice !== 'true') continue;
      const inner = inputFromForm(field.fields ?? [], values);
      const key = (name: string) => name.slice(field.name.length + 1);
      for (const [name, message] of Object.entries(inner.errors)) errors[name] = message;
      const given = Object.fromEntries(Object.entries(inner.input).map(([k, v]) => [key(k), v]));
      if (field.orTrue) input[field.name] = Object.keys(given).length ? given : true;
      else if (!field.orTrue && Object.keys(given).length) input[field.name] = given;
      continue;
    }
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

export function renderField(
  field: FormField,
  value: string | undefined,
  error: string | undefined,
  values: FormValues = {},
  errors: FieldErrors = {},
): Html {
  const id = `f-${field.name.replace(/\./g, '-')}`;
  if (field.kind === 'group') return renderGroup(field, id, value, error, values, errors);
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
      control = html`<textarea
        id="${id}"
        name="${field.name}"
        rows="${field.name.includes('.') ? 3 : 6}"
        class="mono"
        placeholder="JSON"
        ${aria}
      >
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
      const shownDefault =
        typeof field.defaultValue === 'boolean' ? (field.defaultValue ? 'yes' : 'no') : show(field.defaultValue);
      const fallback = field.defaultValue !== undefined ? `default (${shownDefault})` : '(not set)';
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
    <label for="${id}">${field.label}${field.required ? html` <span class="req">(required)</span>` : ''}</label>
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
      ${fields.map((f) => renderField(f, values[f.name], errors[f.name], values, errors))}
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

/** A group's fields in a fieldset, after a yes/no choice when the group may also be just `true`. */
function renderGroup(
  field: FormField,
  id: string,
  value: string | undefined,
  error: string | undefined,
  values: FormValues,
  errors: FieldErrors,
): Html {
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return html`<fieldset
    class="options${error ? ' invalid' : ''}"
    aria-describedby="${field.description && !field.orTrue ? hintId : ''}${error ? ` ${errorId}` : ''}"
  >
    <legend>${field.label}</legend>
    ${field.description && !field.orTrue ? html`<p class="hint" id="${hintId}">${field.description}</p>` : ''}
    ${
      field.orTrue
        ? html`<div class="field">
            <label for="${id}">${field.description ?? field.label}?</label>
            <select id="${id}" name="${field.name}">
              <option value="false" ${value !== 'true' ? html` selected` : ''}>no</option>
              <option value="true" ${value === 'true' ? html` selected` : ''}>
                yes (with the options below, where set)
              </option>
            </select>
          </div>`
        : ''
    }
    ${(field.fields ?? []).map((f) => renderField(f, values[f.name], errors[f.name], values, errors))}
    ${error ? html`<p class="error" id="${errorId}" role="alert">${error}</p>` : ''}
  </fieldset>`;
}
