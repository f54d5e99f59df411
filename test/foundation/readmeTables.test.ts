/**
 * The reference tables of docs/reference.md are generated
 * (scripts/generate-docs.js from scripts/readmeTables.ts): each has its
 * markers, and what stands between them is what the schemas and the settings
 * registry say now.
 */
import * as fs from 'fs';
import * as path from 'path';
import { README_TABLES } from '../../scripts/readmeTables';
import { ENVIRONMENT } from '../../src/common/settings';
import { FLAGS } from '../../src/cli/flags';
import { ACTION_KINDS } from '../../src/contract/actions';
import { RUNTIME_OBJECT_FIELDS } from '../../src/contract/toolArguments';

const PAGE = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'reference.md'), 'utf8');

function section(name: string): string | null {
  const match = new RegExp(`<!-- generated:${name} -->\\n([\\s\\S]*?)\\n<!-- /generated:${name} -->`).exec(PAGE);
  return match ? match[1] : null;
}

test.each(Object.keys(README_TABLES).map((name) => [name]))('the %s table is current (else: npm run generate:docs)', (name) => {
  expect(section(name)).toBe(README_TABLES[name]());
});

test('each table has a row for every entry of its source', () => {
  const rows = (name: string) => README_TABLES[name]().split('\n').slice(2);
  expect(rows('arguments').map((r) => /^\| `([^`]+)`/.exec(r)![1])).toEqual([...RUNTIME_OBJECT_FIELDS]);
  expect(rows('actions').map((r) => /^\| `([^`]+)`/.exec(r)![1])).toEqual([...ACTION_KINDS]);
  expect(rows('environment').map((r) => /^\| `([^`]+)`/.exec(r)![1])).toEqual(Object.values(ENVIRONMENT).map((e) => e.name));
  expect(rows('cli-flags')).toHaveLength(FLAGS.length);
  // A pipe inside a cell is escaped, so every row has the header's columns.
  for (const name of Object.keys(README_TABLES)) {
    const [head, ...rest] = README_TABLES[name]().split('\n');
    const columns = (line: string) => line.replace(/\\\|/g, '').split('|').length;
    for (const line of rest) expect(columns(line)).toBe(columns(head));
  }
});
