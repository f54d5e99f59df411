// Makes the compiled bin executable so `npx design-playbook-evidence` and the
// package's bin link work straight after `npm ci` (the `postprepare` script),
// and seals the build stamp: every step of the build passed.
const fs = require('fs');
const path = require('path');
const { sealStamp } = require('./build-stamp');
const bin = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
if (fs.existsSync(bin)) fs.chmodSync(bin, 0o755);
sealStamp();
