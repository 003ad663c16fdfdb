#!/usr/bin/env node
// The command-line client of the profile-scan API (`profile-scan-client --help`).
import { runClient } from '../dist/cli/client.js';

process.exitCode = await runClient(process.argv.slice(2), process);
