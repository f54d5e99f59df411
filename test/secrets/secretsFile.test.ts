/**
 * The secrets file (src/common/secrets.ts): dotenv's syntax read, a malformed
 * line refused with its number and never its text, a file others may read
 * warned about, and the forms a value is looked for in.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadSecrets, parseSecrets, permissionWarning, secretForms, SecretsFileError, maskSecretValues, secretStore } from '../../src/common/secrets';

const VALUE = 'hunter2-Sx!';

function refusal(text: string): SecretsFileError {
  try {
    parseSecrets(text, 'app.env');
  } catch (err) {
    return err as SecretsFileError;
  }
  throw new Error('not refused');
}

describe('parseSecrets', () => {
  test('reads NAME=value lines, comments, export, quotes and escapes', () => {
    const text = [
      '# the app under test',
      '',
      `APP_PASSWORD=${VALUE}`,
      'export APP_USER = someone@example.com   # inline comment',
      `QUOTED="a b #c\\n\\"d\\""`,
      "SINGLE='as \\n written'  # comment",
      'CRLF=windows-line\r',
    ].join('\n');
    const values = parseSecrets(text, 'app.env');
    expect([...values.keys()]).toEqual(['APP_PASSWORD', 'APP_USER', 'QUOTED', 'SINGLE', 'CRLF']);
    expect(values.get('APP_PASSWORD')).toBe(VALUE);
    expect(values.get('APP_USER')).toBe('someone@example.com');
    expect(values.get('QUOTED')).toBe('a b #c\n"d"');
    expect(values.get('SINGLE')).toBe('as \\n written');
    expect(values.get('CRLF')).toBe('windows-line');
  });

  test.each([
    ['no "="', `# c\nAPP_PASSWORD ${VALUE}`, 2, 'no "="'],
    ['a bad name', `1ABC=${VALUE}`, 1, 'the name before "="'],
    ['an unterminated quote', `\n\nAPP="${VALUE}`, 3, 'no closing double quote'],
    ['text after a quote', `APP='${VALUE}' trailing`, 1, 'text after the closing single quote'],
    ['a name given twice', `APP=${VALUE}\nAPP=${VALUE}x`, 2, 'APP is given again (first on line 1)'],
    ['an empty value', 'APP=', 1, 'APP has an empty value'],
    ['a value too short', 'APP=abc', 1, 'shorter than 6 characters'],
  ])('%s is refused with its line number, never the value', (_, text, line, rule) => {
    const err = refusal(text);
    expect(err).toBeInstanceOf(SecretsFileError);
    expect(err.message).toContain(`secrets file app.env, line ${line}: `);
    expect(err.message).toContain(rule);
    expect(err.message).not.toContain(VALUE);
    expect(err.message).not.toContain('abc');
  });
});

describe('loadSecrets', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a file only its owner may read loads without a warning', () => {
    const file = path.join(dir, 'app.env');
    fs.writeFileSync(file, `APP_PASSWORD=${VALUE}\n`, { mode: 0o600 });
    const warnings: string[] = [];
    const store = loadSecrets(file, (w) => warnings.push(w));
    expect(store.names()).toEqual(['APP_PASSWORD']);
    expect(store.value('APP_PASSWORD')).toBe(VALUE);
    expect(warnings).toEqual([]);
  });

  test('a file others may read loads with a warning, as ssh gives one', () => {
    const file = path.join(dir, 'app.env');
    fs.writeFileSync(file, `APP_PASSWORD=${VALUE}\n`);
    fs.chmodSync(file, 0o644);
    const warnings: string[] = [];
    loadSecrets(file, (w) => warnings.push(w));
    expect(warnings).toEqual([expect.stringContaining('(mode 0644)')]);
    expect(warnings[0]).toContain(`chmod 600 ${file}`);
    expect(warnings[0]).not.toContain(VALUE);
  });

  test('a missing file is refused naming it', () => {
    expect(() => loadSecrets(path.join(dir, 'none.env'), () => undefined)).toThrow(/secrets file .*none\.env cannot be read \(ENOENT\)/);
  });

  test('the permission rule', () => {
    expect(permissionWarning('f', 0o100600)).toBeNull();
    expect(permissionWarning('f', 0o100640)).toContain('mode 0640');
  });
});

describe('secretForms and maskSecretValues', () => {
  test('each form of the value', () => {
    const value = 'p@ss w/rd<&>"é';
    const forms = secretForms(value);
    const has = (text: string) => forms.some((f) => f.bytes.equals(Buffer.from(text)));
    expect(has(value)).toBe(true);
    expect(has(encodeURIComponent(value))).toBe(true);
    expect(has(new URLSearchParams({ v: value }).toString().slice(2))).toBe(true);
    expect(has(JSON.stringify(value).slice(1, -1))).toBe(true);
    expect(has('p@ss w/rd&lt;&amp;&gt;&quot;é')).toBe(true);
    // base64 at any alignment inside a longer stream
    for (const prefix of ['', 'x', 'xy', 'xyz']) {
      const stream = Buffer.from(`${prefix}${value}tail`).toString('base64');
      expect(forms.some((f) => f.encoding === 'base64' && stream.includes(f.bytes.toString()))).toBe(true);
    }
  });

  test('a message shows the name in place of the value', () => {
    const store = secretStore({ APP_PASSWORD: 'p@ss word!' });
    expect(maskSecretValues(`Malformed value 'p@ss word!' and p%40ss%20word! too`, store)).toBe(
      "Malformed value '<secret APP_PASSWORD>' and <secret APP_PASSWORD> too",
    );
  });
});
