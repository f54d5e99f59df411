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
