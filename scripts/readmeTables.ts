/**
 * The reference tables of docs/reference.md, rendered from the tables the
 * program runs on: the tool's input schema (what `tools/list` advertises),
 * the action vocabulary, and the flag/environment registry.
 * scripts/generate-docs.js writes them between that page's
 * `<!-- generated:NAME -->` markers and, with --check, fails when it differs.
 */
import { captureToolDeclaration } from '../src/contract/toolDeclaration';
import { ACTION_KINDS, ACTION_SPECS } from '../src/contract/actions';
import { ENVIRONMENT, type EnvSetting } from '../src/common/settings';
import { COMMANDS, FLAGS } from '../src/cli/flags';

type Node = Record<string, unknown>;

/** A table cell: pipes escaped, no line breaks. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** What a schema node accepts, in a few words. */
function shape(node: Node): string {
  if (node.const !== undefined) return `the ${node.type === 'integer' ? 'integer' : 'value'} ${code(node.const)}`;
  if (Array.isArray(node.enum)) return `one of ${node.enum.map(code).join(', ')}`;
  if (node.type === 'array') {
    const items = (node.items ?? {}) as Node;
    return items.type === 'object' ? 'list of objects' : `list of ${shape(items)}s`;
  }
  if (node.type === 'object' && node.properties) {
    const required = new Set((node.required as string[] | undefined) ?? []);
    const keys = Object.keys(node.properties as Node).map((key) => (required.has(key) ? key : `${key}?`));
    return `object \`{${keys.join(', ')}}\``;
  }
  if (node.type === 'integer') return `integer${node.minimum !== undefined ? ` ≥ ${node.minimum}` : ''}`;
  if (typeof node.type === 'string') return node.type;
  return 'value';
}

/** One row per argument of execute_capture_plan, from its advertised input schema. */
export function argumentsTable(): string {
  const schema = captureToolDeclaration().inputSchema as Node;
  const required = new Set(schema.required as string[]);
  const rows = Object.entries(schema.properties as Record<string, Node>).map(([name, node]) => {
    const parts = [shape(node)];
    if (node.default !== undefined) parts.push(`default ${code(node.default)}`);
    // An object's keys are listed with their own descriptions, unless those are paragraphs (the design axes have a section of their own).
    const nested = node.type === 'object' && node.properties ? Object.entries(node.properties as Record<string, Node>) : [];
    const brief = nested.every(([, child]) => String(child.description ?? '').length <= 120);
    const details = brief ? nested.map(([key, child]) => `\`${key}\`: ${child.description ?? shape(child)}`).join('; ') : '';
    const text = [String(node.description ?? '').replace(/\.$/, ''), details].filter(Boolean).join('. ');
    return [code(name), required.has(name) ? 'yes' : 'no', parts.join(', '), text];
  });
  return table(['argument', 'required', 'takes', 'meaning'], rows);
}

/** One row per action kind, from the action vocabulary. */
export function actionsTable(): string {
  const rows = ACTION_KINDS.map((kind) => {
    const spec = ACTION_SPECS[kind];
    const named = (field: string) =>
      field
        .split('|')
        .map((f) => (spec.aliases?.[f] ? `${code(f)} (or ${code(spec.aliases[f])})` : code(f)))
        .join(' or ');
    const fields = [...spec.required.map(named), ...spec.optional.map((f) => `${named(f)}?`)].join(', ');
    return [code(kind), fields || '—', spec.does];
  });
  return table(['`do`', 'fields (`?` optional)', 'what it does'], rows);
}

/** One row per environment variable, from the registry, with the flag that outranks it. */
export function environmentTable(): string {
  const rows = Object.entries(ENVIRONMENT).map(([key, setting]: [string, EnvSetting]) => {
    const flags = FLAGS.filter((f) => f.env === key).map((f) => `\`--${f.name}\``);
    return [code(setting.name), setting.meaning, setting.default ?? '—', [...new Set(flags)].join(', ') || '—'];
  });
  return table(['variable', 'meaning', 'default', 'outranked by'], rows);
}

/** One row per flag, from the registry: where it is taken and what it does. */
export function flagsTable(): string {
  const rows = FLAGS.map((f) => {
    const modes = f.commands.length === COMMANDS.length ? 'every mode' : f.commands.map((c) => (c === 'serve' ? 'no command' : `\`${c}\``)).join(', ');
    const flag = `\`--${f.name}${f.value ? ` ${f.value}` : ''}\`${f.alias ? ` (\`${f.alias}\`)` : ''}${f.repeat ? ' (repeatable)' : ''}`;
    return [flag, modes, f.meaning, f.default ?? '—'];
  });
  return table(['flag', 'taken by', 'meaning', 'default'], rows);
}

/** The generated sections of docs/reference.md, by marker name. */
export const README_TABLES: Record<string, () => string> = {
  arguments: argumentsTable,
  actions: actionsTable,
  environment: environmentTable,
  'cli-flags': flagsTable,
};
