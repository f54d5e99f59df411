// Empties dist/ before tsc writes it, so the build holds only what the
// current sources compile to: no output of a source since deleted or
// renamed, and no source maps from an earlier build that made them (the
// package ships dist/ whole; tsc never removes a file).
const fs = require('fs');
const path = require('path');
fs.rmSync(path.join(__dirname, '..', 'dist'), { recursive: true, force: true });
