#!/usr/bin/env node
// The `oauth-service` executable (package.json bin): the same entry point as dist/main.js.
import '../main.js';
