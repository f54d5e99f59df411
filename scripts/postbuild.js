// Makes the compiled bin executable so `npx design-playbook-evidence` and the
// package's bin link work straight after `npm ci` (the `prepare` script).
const fs = require('fs');
const path = require('path');
const bin = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
if (fs.existsSync(bin)) fs.chmodSync(bin, 0o755);
