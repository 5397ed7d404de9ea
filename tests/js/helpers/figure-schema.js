// The figure schema checker the tests share (figure-schema.test.js, snapshot-kinds.test.js): where a
// value breaks docs/figure.schema.json. It knows only the keywords the schema uses and refuses any
// other, so the schema cannot outgrow what is checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCHEMA = JSON.parse(readFileSync(join(ROOT, 'docs', 'figure.schema.json'), 'utf8'));
// $defs: read through $ref; then and else: with if.
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$defs', 'then', 'else']);

/** Where `value` breaks `schema` (a list of "path: why"; empty when it conforms). */
export function schemaErrors(value, schema = SCHEMA, path = '$') {
  if (schema === false) return [`${path}: not allowed here`];   // a field the other case forbids
  if (schema === true) return [];
  const errors = [];
  const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    const fail = (why) => errors.push(`${path}: ${why}`);
    switch (keyword) {
      case 'type': {
        const t = typeOf(value);
        const types = [rule].flat();   // one type, or a list of them (a number or null)
        if (!types.some((r) => t === r || (r === 'number' && t === 'integer'))) fail(`${t}, not ${types.join(' or ')}`);
        break;
      }
      case 'const': if (value !== rule) fail(`${JSON.stringify(value)} is not ${JSON.stringify(rule)}`); break;
      case 'enum': if (!rule.includes(value)) fail(`${JSON.stringify(value)} is not one of ${JSON.stringify(rule)}`); break;
      case 'minimum': if (typeof value === 'number' && value < rule) fail(`${value} < ${rule}`); break;
      case 'maximum': if (typeof value === 'number' && value > rule) fail(`${value} > ${rule}`); break;
      case 'minItems': if (Array.isArray(value) && value.length < rule) fail(`${value.length} items < ${rule}`); break;
      case 'maxItems': if (Array.isArray(value) && value.length > rule) fail(`${value.length} items > ${rule}`); break;
      case 'items': if (Array.isArray(value)) value.forEach((v, i) => errors.push(...schemaErrors(v, rule, `${path}[${i}]`))); break;
      case 'prefixItems':
        if (Array.isArray(value)) rule.forEach((s, i) => { if (i < value.length) errors.push(...schemaErrors(value[i], s, `${path}[${i}]`)); });
        break;
      case 'allOf': for (const s of rule) errors.push(...schemaErrors(value, s, path)); break;
      case 'if':   // the condition's errors are not the value's: they choose then or else
        errors.push(...schemaErrors(value, schemaErrors(value, rule, path).length === 0 ? schema.then ?? true : schema.else ?? true, path));
        break;
      case '$ref': {
        const m = /^#\/\$defs\/(\w+)$/.exec(rule);
        if (!m || !SCHEMA.$defs?.[m[1]]) throw new Error(`${path}: $ref ${rule} is not one of the schema's $defs`);
        errors.push(...schemaErrors(value, SCHEMA.$defs[m[1]], path));
        break;
      }
      case 'required':
        if (typeOf(value) === 'object') for (const k of rule) if (!Object.hasOwn(value, k)) fail(`missing ${k}`);
        break;
      case 'properties':
        if (typeOf(value) === 'object') {
          for (const [k, s] of Object.entries(rule)) if (Object.hasOwn(value, k)) errors.push(...schemaErrors(value[k], s, `${path}.${k}`));
        }
        break;
      case 'additionalProperties':
        if (rule !== false) throw new Error(`${path}: additionalProperties other than false is not checked here`);
        if (typeOf(value) === 'object') for (const k of Object.keys(value)) if (!Object.hasOwn(schema.properties ?? {}, k)) fail(`unknown field ${k}`);
        break;
      case 'dependentRequired':
        if (typeOf(value) === 'object') {
          for (const [k, needs] of Object.entries(rule)) {
            if (Object.hasOwn(value, k)) for (const n of needs) if (!Object.hasOwn(value, n)) fail(`${k} needs ${n}`);
          }
        }
        break;
      default: throw new Error(`${path}: the schema uses "${keyword}", which this checker does not know`);
    }
  }
  return errors;
}

