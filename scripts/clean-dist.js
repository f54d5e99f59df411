// Empties dist/ before tsc writes it, so the build holds only what the
// current sources compile to: no output of a source since deleted or
// renamed, and no source maps from an earlier build that made them (the
// package ships dist/ whole; tsc never removes a file). Then records what
// this build is built from (scripts/build-stamp.js; postbuild.js seals it).
const fs = require('fs');
const path = require('path');
const { beginStamp } = require('./build-stamp');
fs.rmSync(path.join(__dirname, '..', 'dist'), { recursive: true, force: true });
beginStamp();
