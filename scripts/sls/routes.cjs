'use strict';
// serverless.yml reads each HTTP function's `httpApi` events from the route registry
// (lib/http/routes/), so that a route is declared once: `${file(./scripts/sls/routes.cjs):httpApiEvents.listJobs}`.
const path = require('node:path');
const tsx = require('tsx/cjs/api');

const registry = tsx.require(path.join(__dirname, '../../lib/http/routes/index.ts'), __filename);

module.exports.httpApiEvents = () => registry.httpApiEvents();
