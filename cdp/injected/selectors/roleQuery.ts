/**
 * role=… and internal:role=…: elements by ARIA role, with name and state
 * filters. Roles, names, states and hidden-ness come from the aria modules
 * the snapshot is built from (../aria/), so a selector matches what the
 * snapshot prints. Hidden elements are skipped unless [include-hidden].
 * role=: [name="…"] is the whole name (case-sensitive; "…"i folds case);
 * internal:role= (what getByRole prints): [name="…"i] is a case-insensitive
 * substring and [name="…"s] the exact name.
 */
import {
  ariaRole,
  checkedState,
  CHECKED_ROLES,
  disabledState,
  expandedState,
  EXPANDED_ROLES,
  LEVEL_ROLES,
  levelState,
  pressedState,
  PRESSED_ROLES,
  selectedState,
  SELECTED_ROLES,
} from '../aria/roles';
import { accessibleName } from '../aria/names';
import { isHiddenForAria } from '../aria/visibility';
import { matchesAttributeTest, parseAttributeSelector, type AttributeOperator, type AttributeTest } from './attributeSelector';
import { SelectorSyntaxError } from './syntaxError';
import { normalizeWhiteSpace } from './textMatch';

export interface RoleQuery {
  role: string;
  name?: { op: AttributeOperator; value: string | RegExp; caseSensitive: boolean };
  checked?: boolean | 'mixed';
  pressed?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  level?: number;
  disabled?: boolean;
  includeHidden?: boolean;
}

const ATTRIBUTES = ['checked', 'disabled', 'expanded', 'include-hidden', 'level', 'name', 'pressed', 'selected'];

export function compileRole(body: string, offset: number, internal: boolean): RoleQuery {
  const parsed = parseAttributeSelector(body, offset);
  const role = parsed.name.toLowerCase();
  if (!role) throw new SelectorSyntaxError(offset, 'role= needs a role name, e.g. role=button[name="Save"]');
  const out: RoleQuery = { role };
  for (const t of parsed.tests) {
    const fail = (rule: string): never => {
      throw new SelectorSyntaxError(t.position, rule);
    };
    const onlyFor = (roles: string[]) => {
      if (!roles.includes(role))
        fail(
          `[${t.name}] applies only to roles ${roles
            .slice()
            .sort()
            .map((r) => `"${r}"`)
            .join(', ')}`,
        );
    };
    const flag = (allowed: unknown[]): any => {
      if (t.op === '<truthy>') return true;
      if (t.op !== '=' || !allowed.includes(t.value)) fail(`[${t.name}] must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
      return t.value;
    };
    switch (t.name) {
      case 'checked':
        onlyFor(CHECKED_ROLES);
        out.checked = flag([true, false, 'mixed']);
        break;
      case 'pressed':
        onlyFor(PRESSED_ROLES);
        out.pressed = flag([true, false, 'mixed']);
        break;
      case 'selected':
        onlyFor(SELECTED_ROLES);
        out.selected = flag([true, false]);
        break;
      case 'expanded':
        onlyFor(EXPANDED_ROLES);
        out.expanded = flag([true, false]);
        break;
      case 'disabled':
        out.disabled = flag([true, false]);
        break;
      case 'include-hidden':
        out.includeHidden = flag([true, false]);
        break;
      case 'level': {
        onlyFor(LEVEL_ROLES);
        const level = typeof t.value === 'string' ? Number(t.value) : t.value;
        if (t.op !== '=' || typeof level !== 'number' || Number.isNaN(level)) fail('[level] must be compared to a number, e.g. [level=2]');
        out.level = level as number;
        break;
      }
      case 'name': {
        if (t.op === '<truthy>') fail('[name] needs a value, e.g. [name="Save"]');
        if (typeof t.value !== 'string' && !(t.value instanceof RegExp)) fail('[name] must be a quoted string or a regular expression');
        const value = typeof t.value === 'string' ? normalizeWhiteSpace(t.value) : (t.value as RegExp);
        // internal:role (getByRole) reads a plain [name="…"i] as a substring.
        const op = internal && !t.caseSensitive && t.op === '=' ? '*=' : t.op;
        out.name = { op, value, caseSensitive: t.caseSensitive };
        break;
      }
      case 'description':
        fail('[description] is not supported by this engine (accessible descriptions are not computed)');
        break;
      default:
        fail(`unknown attribute [${t.name}]; role selectors take ${ATTRIBUTES.map((a) => `[${a}]`).join(', ')}`);
    }
  }
  return out;
}

export function roleMatches(e: Element, q: RoleQuery): boolean {
  if (ariaRole(e) !== q.role) return false;
  if (q.selected !== undefined && selectedState(e) !== q.selected) return false;
  if (q.checked !== undefined && checkedState(e) !== q.checked) return false;
  if (q.pressed !== undefined && pressedState(e) !== q.pressed) return false;
  if (q.expanded !== undefined && expandedState(e) !== q.expanded) return false;
  if (q.level !== undefined && levelState(e) !== q.level) return false;
  if (q.disabled !== undefined && disabledState(e) !== q.disabled) return false;
  if (!q.includeHidden && isHiddenForAria(e)) return false;
  if (q.name) {
    const name = normalizeWhiteSpace(accessibleName(e, q.role, !!q.includeHidden));
    const test: Pick<AttributeTest, 'op' | 'value' | 'caseSensitive'> = q.name;
    if (!matchesAttributeTest(name, test)) return false;
  }
  return true;
}

/** Matches under `scope` (not the scope itself): light DOM first, then each open shadow root in turn. */
export function queryRole(scope: Document | Element | ShadowRoot, q: RoleQuery): Element[] {
  const out: Element[] = [];
  const visit = (root: Document | Element | ShadowRoot) => {
    const shadows: ShadowRoot[] = [];
    if ((root as Element).shadowRoot) shadows.push((root as Element).shadowRoot as ShadowRoot);
    const all = root.querySelectorAll('*');
    for (let k = 0; k < all.length; k++) {
      const e = all[k];
      if (roleMatches(e, q)) out.push(e);
      if (e.shadowRoot) shadows.push(e.shadowRoot);
    }
    shadows.forEach(visit);
  };
  visit(scope);
  return out;
}
