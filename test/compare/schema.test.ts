/**
 * The comparison's result schema: schemas/compare_result_v1.schema.json is
 * what src/compare/schema.ts generates, byte for byte, and a real
 * compare.json is valid under it (checked with Ajv, a validator that is not
 * the one that made the schema).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import Ajv2020 from 'ajv/dist/2020';
import { COMPARE_SCHEMA_FILE, serializeCompareSchema } from '../../src/compare/schema';
import { compareEvidence } from '../../src/compare/run';
import * as library from '../../src/index';
import { blank, fillRect, hex, pngOf } from './pixelFixtures';

const FILE = path.join(__dirname, '..', '..', 'schemas', COMPARE_SCHEMA_FILE);

test('the committed schema is the generated one (run npm run generate:schemas after changing it)', () => {
  expect(fs.readFileSync(FILE, 'utf8')).toBe(serializeCompareSchema());
});

test('a compare.json is valid under it, and a result missing its status is not', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-schema-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.png'), pngOf(fillRect(blank(60, 40), 10, 10, 20, 10, hex('#1565c0'))));
    fs.writeFileSync(path.join(dir, 'b.png'), pngOf(fillRect(blank(60, 50), 10, 12, 20, 10, hex('#1565c0'))));
    const result = await compareEvidence({ artifacts: [path.join(dir, 'a.png'), path.join(dir, 'b.png')] }, { out: path.join(dir, 'out') });
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(fs.readFileSync(FILE, 'utf8')));
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'compare.json'), 'utf8'));
    expect(validate(written)).toBe(true);
    expect(written.items[0].pixels.extension).not.toBeNull();
    expect(result.status).toBe('changed');
    const { status: _status, ...withoutStatus } = written;
    expect(validate(withoutStatus)).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the package exports the comparison (the library function the CLI and the tool share) and its schema', () => {
  expect(library.compareEvidence).toBe(compareEvidence);
  expect(library.COMPARE_SCHEMA_FILE).toBe(COMPARE_SCHEMA_FILE);
  expect(typeof library.exitStatusOf).toBe('function');
});
