#!/usr/bin/env node
// The installed command and the systemd unit's entry: runs the agent release that an update
// installed (release-launcher.js), else this installation's build.
import { chooseCli } from './release-launcher.js';

await import(chooseCli(process.argv.slice(2), process.env));
