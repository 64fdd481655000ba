#!/usr/bin/env node
// The installed command: runs the built CLI (npm links this file at install, before any build).
import '../dist/cli.js';
