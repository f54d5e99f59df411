/**
 * The portability checks the MCP Inspector's `--strict` mode runs on tool
 * schemas (@modelcontextprotocol/inspector 2.12, `tools/list --strict`),
 * restated for the tests: a bare boolean where a schema object belongs
 * (error), a `type` array, a `$ref` outside the document, and a schema that
 * constrains nothing such as `{}` (warnings). Each finding names its path.
 */

export interface PortabilityFinding {
  rule: 'boolean-schema' | 'type-union' | 'remote-ref' | 'untyped-schema';
  severity: 'error' | 'warning';
  path: string;
}

/** Where a bare `true`/`false` is the ordinary spelling, not a schema. */
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const ONE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function portabilityFindings(schema: unknown, root = ''): PortabilityFinding[] {
  const findings: PortabilityFinding[] = [];
  const visit = (node: unknown, path: string, keyword?: string): void => {
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_ALLOWED.has(keyword)) findings.push({ rule: 'boolean-schema', severity: 'error', path });
      return;
    }
    if (!isNode(node)) return;
    if (Array.isArray(node.type)) findings.push({ rule: 'type-union', severity: 'warning', path });
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#')) findings.push({ rule: 'remote-ref', severity: 'warning', path });
    const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push({ rule: 'untyped-schema', severity: 'warning', path });
    for (const key of MAPS) if (isNode(node[key])) for (const [name, sub] of Object.entries(node[key] as object)) visit(sub, `${path}.${key}.${name}`, key);
    for (const key of LISTS) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((sub, i) => visit(sub, `${path}.${key}[${i}]`, key));
    for (const key of ONE) {
      if (!(key in node)) continue;
      if (key === 'items' && Array.isArray(node.items)) node.items.forEach((sub, i) => visit(sub, `${path}.items[${i}]`, key));
      else visit(node[key], `${path}.${key}`, key);
    }
  };
  visit(schema, root);
  return findings;
}
