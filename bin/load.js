'use strict';
// The loader, for the bundles and scripts that load one bundle from another (dist/fast.cjs hands over to
// dist/hook.cjs; scripts/warm-caches.cjs): it lives in bin/ic, which is then not run.
module.exports = require('./ic');
