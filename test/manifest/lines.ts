/**
 * Manifest lines for the schema and reader tests. FIELD_LINE is the line
 * contract-facts shows as seen in the field, byte for byte.
 */
export const FIELD_LINE_TEXT =
  '{"criterion": "L6.3", "artifact": "L6.3-error.png", "observed_state": "error", "result": "captured", "ts": "2026-07-16T15:00:00+08:00", ' +
  '"capture": {"provider": "design-playbook-evidence", "url": "http://127.0.0.1:8138/ui.html", "type": "screenshot", "state": "error", "actions": [], ' +
  '"artifact_path": "evidence/L6.3-error.png", "note": "surface: live"}, ' +
  '"request": {"schemaVersion": 1, "viewport": {"width": 1280, "height": 800, "devicePixelRatio": 1.0, "colorScheme": "light"}, ' +
  '"freeze": {"enabled": true, "waitFonts": true, "networkIdle": false}}}';

export type Line = Record<string, any>;

export function fieldLine(): Line {
  return JSON.parse(FIELD_LINE_TEXT);
}

/** A deep copy of the field line changed by `edit`. */
export function variant(edit: (line: Line) => void): Line {
  const line = fieldLine();
  edit(line);
  return line;
}

export const DESIGN = { fontSizes: [14, 16, '20px', 24], colors: ['#f5f5f5', '#ffffff', '#1a1a1a', 'rgb(11 107 203)'], radii: [4, 8, 12, 20] };

/**
 * Lines as the orchestrator writes them for each provider it used, byte for
 * byte as issue 12 shows them: a person (`manual`, free-text steps, the
 * snapshot at both places), a Playwright script (no url, no actions, no
 * artifact_path), and this server's line from before the request snapshot.
 */
export const MANUAL_LINE_TEXT =
  '{"criterion": "L6.2", "capture": {"type": "screenshot", "provider": "manual", "state": "empty", "actions": ["open the empty dataset", "click export"], "schemaVersion": 1, "request": {"schemaVersion": 1, "viewport": {"width": 1440, "height": 900, "devicePixelRatio": 2.0, "colorScheme": "dark"}, "freeze": {"enabled": true, "waitFonts": true, "networkIdle": false}}}, "artifact": "L6.2-empty.png", "observed_state": "empty", "result": "captured", "ts": "2026-07-18T09:12:00+08:00", "request": {"schemaVersion": 1, "viewport": {"width": 1440, "height": 900, "devicePixelRatio": 2.0, "colorScheme": "dark"}, "freeze": {"enabled": true, "waitFonts": true, "networkIdle": false}}}';
export const PLAYWRIGHT_LINE_TEXT =
  '{"criterion": "L6.5", "capture": {"provider": "playwright", "state": "retry", "type": "screenshot", "schemaVersion": 1, "request": {"schemaVersion": 1, "viewport": {"width": 1280, "height": 800, "devicePixelRatio": 1.0, "colorScheme": "light"}, "freeze": {"enabled": true, "waitFonts": true, "networkIdle": false}}}, "artifact": "L6.5-retry.png", "observed_state": "retry", "result": "captured", "ts": "2026-07-21T09:20:00+08:00"}';
export const PRE_SNAPSHOT_LINE_TEXT =
  '{"criterion": "L6.1", "artifact": "L6.1-ready.png", "observed_state": "ready", "result": "captured", "capture": {"provider": "design-playbook-evidence", "url": "http://127.0.0.1:8137/ui.html", "type": "screenshot", "state": "ready", "actions": [{"do": "wait_for_selector", "selector": "#grid .card"}], "artifact_path": "evidence/L6.1-ready.png", "note": "surface: live"}, "ts": "2026-07-31T18:48:07+00:00"}';

export const parse = (text: string): Line => JSON.parse(text);
